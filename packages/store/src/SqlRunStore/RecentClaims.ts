import { Option } from "effect"
import type { EventId } from "@usine/core/ids/EventId"
import type { Run } from "@usine/core/run/Run"
import type { ClaimResult } from "../RunClaims"

/** What the store answers for an Event that already has `run`: its Run, not opened by this claim. */
export const duplicateAnswer = (run: Run): ClaimResult => ({ _tag: "Claimed", run, opened: false, superseded: Option.none() })

/** How many final answers the store keeps in memory: a busy repository's Items times its Loops, with room. */
export const RECENT_CLAIMS = 2_048

/**
 * The final answers of recently claimed or ignored Events, in front of the duplicate check's read (ADR 0080): a
 * duplicate found here costs no SQL. Only an answer that equals what the ledger's committed rows say is kept: every
 * write of an Event's row or of its Run's row forgets the Event (`forget`, from the queries themselves), an answer read
 * while a write to it was in flight is refused, and a transaction's answers are kept only once it has committed.
 * Bounded: the oldest answer goes first; a hit makes it the newest.
 */
export const makeRecentClaims = (capacity: number = RECENT_CLAIMS) => {
  const answers = new Map<EventId, ClaimResult>()
  /** Events written since the last `settle`, and the answers to keep if the transaction commits (null: none). */
  const touched = new Map<EventId, ClaimResult | null>()
  let epoch = 0

  const put = (eventId: EventId, answer: ClaimResult) => {
    answers.delete(eventId)
    answers.set(eventId, answer)
    if (answers.size > capacity) answers.delete(answers.keys().next().value!)
  }

  return {
    /** The Event's final answer, if it is kept. */
    get: (eventId: EventId): ClaimResult | undefined => {
      const answer = answers.get(eventId)
      if (answer !== undefined) put(eventId, answer)
      return answer
    },
    /** Changes with every write and every transaction's end: an answer read at one epoch is kept only at the same. */
    epoch: (): number => epoch,
    /** Keeps `answer`, read from committed rows at `readAt`, unless a write reached the Event since. */
    remember: (eventId: EventId, answer: ClaimResult, readAt: number): void => {
      if (readAt === epoch && !touched.has(eventId)) put(eventId, answer)
    },
    /** The Event's row or its Run's row is being written: its answer may change. */
    forget: (eventId: string): void => {
      answers.delete(eventId as EventId)
      touched.set(eventId as EventId, null)
      epoch++
    },
    /** Keeps `answer` if the transaction writing it commits. */
    rememberAtCommit: (eventId: EventId, answer: ClaimResult): void => {
      touched.set(eventId, answer)
    },
    /** A ledger transaction ended: committed answers are kept, everything else it touched is forgotten. */
    settle: (committed: boolean): void => {
      for (const [eventId, answer] of touched) {
        if (committed && answer !== null) put(eventId, answer)
        else answers.delete(eventId)
      }
      touched.clear()
      epoch++
    },
    size: (): number => answers.size
  }
}

export type RecentClaims = ReturnType<typeof makeRecentClaims>
