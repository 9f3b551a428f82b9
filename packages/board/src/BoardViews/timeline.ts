import { Match } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Transition } from "@usine/core/run/Transition"
import type { HoldKind } from "@usine/core/brakes/HoldKind"
import { formatHeldFor, type RunNote, usageDisagreedLine } from "@usine/store/RunNote"
import { type EditView, editView } from "./editView"

/** One line of a Run's history: who did what, when, and why. */
export interface TimelineEntry {
  readonly at: number
  readonly actor: string
  /** The GitHub login of the signed-in person behind an operator's line (ADR 0098); absent for scripts and old rows. */
  readonly by?: string | undefined
  readonly what: string
  readonly why: string
  /** The kind of Run note the line shows; absent for transitions and Attempts. */
  readonly note?: RunNote["body"]["_tag"] | undefined
  /** What an Edit and retry changed. */
  readonly edit?: EditView | undefined
}

/**
 * Within one millisecond: entering an open state, then the Attempt's start, its end, and the closing state. A note
 * ranks with the transition it follows.
 */
type Ranked = TimelineEntry & { readonly rank: number }
const CLOSED: ReadonlySet<string> = new Set(["Succeeded", "Failed", "Canceled"])

const HOLD_LABEL: Record<HoldKind, string> = {
  AgentQuota: "the provider's quota",
  DailyCap: "a daily cap",
  NoProgress: "the no-progress brake",
  OpenPullRequests: "the open pull request limit",
  RetryBackoff: "the wait before an automatic retry"
}

const outcomeWhy = (outcome: AttemptOutcome): string =>
  Match.valueTags(outcome, {
    Succeeded: ({ result }) => [result.summary, result.pullRequestUrl].filter((part) => part !== undefined).join(" · "),
    Failed: ({ failure }) => failure.message,
    Canceled: ({ reason }) => reason
  })

const attemptEntries = (attempt: Attempt): ReadonlyArray<Ranked> => [
  {
    rank: 1,
    at: attempt.startedAt,
    actor: "engine",
    what: `Attempt ${attempt.number} started${attempt.worker === undefined ? "" : ` on ${attempt.worker}`}`,
    why: ""
  },
  ...(attempt.outcome === undefined
    ? []
    : [{
      rank: 2,
      at: attempt.endedAt ?? attempt.startedAt,
      actor: "executor",
      what: `Attempt ${attempt.number} ${attempt.outcome._tag.toLowerCase()}`,
      why: outcomeWhy(attempt.outcome)
    }])
]

const noteEntry = (note: RunNote): TimelineEntry => {
  const base = { at: note.at, actor: note.actor, ...(note.login === undefined ? {} : { by: note.login }), note: note.body._tag }
  return Match.valueTags(note.body, {
    Held: ({ holdKind, reason }) => ({ ...base, what: `held by ${HOLD_LABEL[holdKind]}`, why: reason }),
    Released: ({ heldMs, why }) => ({ ...base, what: `released after ${formatHeldFor(heldMs)}`, why }),
    Edited: ({ after, before }) => {
      const edit = editView(before, after)
      const changed = [...(edit.task === undefined ? [] : ["task"]), ...edit.fields.map((f) => f.field)]
      return { ...base, what: `edited: ${changed.length === 0 ? "nothing changed" : changed.join(", ")}`, why: "", edit }
    },
    UsageDisagreed: (body) => ({ ...base, what: "usage figures disagree", why: usageDisagreedLine(body) })
  })
}

/** Transitions by seq with each note placed after the transition it was written after. */
const causal = (transitions: ReadonlyArray<Transition>, notes: ReadonlyArray<RunNote>): ReadonlyArray<Ranked> => {
  const pending = [...notes].sort((a, b) => (a.afterSeq ?? -1) - (b.afterSeq ?? -1) || a.id - b.id)
  const out: Array<Ranked> = []
  let rank = 0
  const flushBefore = (seq: number) => {
    while (pending.length > 0 && (pending[0]?.afterSeq ?? -1) < seq) {
      out.push({ ...noteEntry(pending.shift() as RunNote), rank })
    }
  }
  for (const t of [...transitions].sort((a, b) => a.seq - b.seq)) {
    flushBefore(t.seq)
    rank = CLOSED.has(t.to) ? 3 : 0
    out.push({
      rank,
      at: t.at,
      actor: t.actor,
      ...(t.login === undefined ? {} : { by: t.login }),
      what: t.from === undefined ? `opened ${t.to}` : `${t.from} → ${t.to}`,
      why: t.reason
    })
  }
  flushBefore(Number.POSITIVE_INFINITY)
  return out
}

/**
 * The transition log, the Run's notes and its Attempts, merged by time. Transitions and notes keep their ledger order;
 * an Attempt's line goes before the first of them that is later, or as late with a higher rank.
 */
export const timeline = (
  transitions: ReadonlyArray<Transition>,
  attempts: ReadonlyArray<Attempt>,
  notes: ReadonlyArray<RunNote> = []
): ReadonlyArray<TimelineEntry> => {
  const logged = causal(transitions, notes)
  const lines = attempts.flatMap(attemptEntries).sort((a, b) => a.at - b.at || a.rank - b.rank)
  const merged: Array<Ranked> = []
  let i = 0
  const earlier = (a: Ranked, b: Ranked) => a.at < b.at || (a.at === b.at && a.rank < b.rank)
  for (const entry of logged) {
    for (let next = lines[i]; next !== undefined && earlier(next, entry); next = lines[++i]) merged.push(next)
    merged.push(entry)
  }
  return [...merged, ...lines.slice(i)].map(({ rank: _rank, ...entry }) => entry)
}
