import { Match } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Transition } from "@usine/core/run/Transition"

/** One line of a Run's history: who did what, when, and why. */
export interface TimelineEntry {
  readonly at: number
  readonly actor: string
  readonly what: string
  readonly why: string
}

/** Within one millisecond: entering an open state, then the Attempt's start, its end, and the closing state. */
type Ranked = TimelineEntry & { readonly rank: number }
const CLOSED: ReadonlySet<string> = new Set(["Succeeded", "Failed", "Canceled"])

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

/** The transition log and the Attempts, merged by time. */
export const timeline = (
  transitions: ReadonlyArray<Transition>,
  attempts: ReadonlyArray<Attempt>
): ReadonlyArray<TimelineEntry> =>
  [
    ...transitions.map((t): Ranked => ({
      rank: CLOSED.has(t.to) ? 3 : 0,
      at: t.at,
      actor: t.actor,
      what: t.from === undefined ? `opened ${t.to}` : `${t.from} → ${t.to}`,
      why: t.reason
    })),
    ...attempts.flatMap(attemptEntries)
  ].sort((a, b) => a.at - b.at || a.rank - b.rank).map(({ rank: _rank, ...entry }) => entry)
