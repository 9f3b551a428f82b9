import { Context, type Effect, type Option } from "effect"
import type { HoldKind } from "@usine/core/brakes/HoldKind"
import type { ProgressVerdict } from "@usine/core/brakes/ProgressVerdict"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import type { Usage } from "@usine/core/transcript/TranscriptRow"

/** Whom an Attempt's usage counts against. */
export interface UsageOwner {
  readonly attemptId: AttemptId
  readonly runId: RunId
  readonly loop: string
  readonly repository: string
  readonly agent: string
}

export type UsageScope = "global" | "loop" | "repository"

/** What one scope used on one UTC day (`YYYY-MM-DD`); `costUsd` only where a harness reported cost. */
export interface DayUsage {
  readonly day: string
  readonly scope: UsageScope
  /** The Loop, the lowercase repository, or `""` for global. */
  readonly name: string
  readonly usage: Usage
}

/** How far an operator raised a daily cap for one day, on top of usine.yaml. */
export interface CapRaise {
  readonly day: string
  readonly scope: "global" | "loop"
  readonly name: string
  readonly tokens: number
  readonly costUsd: number
}

/** A provider's quota ran out: no new Attempt of the Agent before `until` (epoch ms). */
export interface AgentHold {
  readonly agent: string
  readonly until: number
  readonly reason: string
  readonly attemptId: AttemptId
  readonly at: number
}

/** A Loop and Item's progress record: what the last progressing Attempt left and the no-progress streak since. */
export interface ItemProgress {
  readonly loop: string
  readonly itemKey: ItemKey
  readonly lastHead: string | undefined
  readonly lastPullRequest: number | undefined
  readonly streak: number
  /** One line per no-progress Attempt of the streak, oldest first. */
  readonly evidence: ReadonlyArray<string>
  /** Set once the streak reached the Loop's `max_no_progress`; only an operator clears it. */
  readonly parkedAt: number | undefined
}

/** Why an open Run's next Attempt waits, and until when if that is known. */
export interface RunHold {
  readonly runId: RunId
  readonly kind: HoldKind
  readonly reason: string
  readonly until: number | undefined
  readonly since: number
}

/** A hold with the Run it holds, as Needs you lists it. */
export interface HeldRun extends RunHold {
  readonly loop: string
  readonly itemKey: ItemKey
  readonly repository: string
  readonly number: number | undefined
  readonly agent: string
  readonly state: string
}

/**
 * The ledger's side of budgets and brakes: usage per Attempt and per UTC day, cap raises, Agent quota holds,
 * no-progress records, the pull requests each Loop opened, and why held Runs wait. Everything is persisted, so a
 * restarted daemon keeps every brake.
 */
export class BrakeStore extends Context.Tag("usine/BrakeStore")<
  BrakeStore,
  {
    /**
     * Replaces the Attempt's usage total with `usage` and adds its increase over the previous total to today's figures
     * (by `Clock`, UTC) of the global, Loop and repository scopes, in one transaction. A repeated row adds nothing.
     */
    readonly recordUsage: (owner: UsageOwner, usage: Usage) => Effect.Effect<void>
    /**
     * Notes on the Run that the Attempt's stream reported other usage than the model proxy counted (ADR 0086): a
     * `UsageDisagreed` Run note, shown on its timeline.
     */
    readonly noteUsageDisagreed: (
      runId: RunId,
      figures: { readonly attempt: number; readonly streamTokens: number; readonly meteredTokens: number }
    ) => Effect.Effect<void>
    /** The usage total of each Attempt of the Run that reported one, by Attempt number. */
    readonly runUsage: (
      runId: RunId
    ) => Effect.Effect<ReadonlyArray<{ readonly attemptId: AttemptId; readonly number: number; readonly usage: Usage }>>
    /** Every scope's figures for the UTC days from `fromDay` to `toDay`, inclusive. */
    readonly usageOfDays: (fromDay: string, toDay: string) => Effect.Effect<ReadonlyArray<DayUsage>>
    /** Sets how far a daily cap is raised for that day only; a repeat changes nothing. */
    readonly raiseCap: (raise: CapRaise) => Effect.Effect<void>
    /** The raises of one day. */
    readonly raises: (day: string) => Effect.Effect<ReadonlyArray<CapRaise>>
    /** Holds the Agent until `hold.until`, or keeps a later hold already there. */
    readonly holdAgent: (hold: AgentHold) => Effect.Effect<void>
    /** Holds whose `until` is after `now`. */
    readonly agentHolds: (now: number) => Effect.Effect<ReadonlyArray<AgentHold>>
    /** The progress record of a Loop and Item, if an Attempt was ever judged there. */
    readonly progress: (loop: string, itemKey: ItemKey) => Effect.Effect<Option.Option<ItemProgress>>
    /** Records a judged Attempt: progress resets the streak, no progress extends it and parks the Item at `max`. */
    readonly recordProgress: (loop: string, itemKey: ItemKey, verdict: ProgressVerdict, max: number) => Effect.Effect<ItemProgress>
    /** Parked Items, oldest park first, at most `limit`. */
    readonly parked: (limit: number) => Effect.Effect<ReadonlyArray<ItemProgress>>
    /** Ends a park and its streak; false when the Item was not parked. */
    readonly clearPark: (loop: string, itemKey: ItemKey) => Effect.Effect<boolean>
    /** Remembers a pull request the Loop opened (not the Item's own pull request), for its WIP limit. */
    readonly recordPullRequest: (loop: string, repository: string, number: number, runId: RunId) => Effect.Effect<void>
    /**
     * The Loop's pull requests not yet seen merged or closed: the Item projection polling stores is the authority, and
     * one polling has not seen yet counts as open.
     */
    readonly openPullRequests: (
      loop: string
    ) => Effect.Effect<ReadonlyArray<{ readonly repository: string; readonly number: number }>>
    /** Records (or replaces) why the Run waits; a new hold, or a new reason, also writes a Run note (ADR 0049). */
    readonly holdRun: (hold: RunHold) => Effect.Effect<void>
    /** The Run no longer waits; ending a hold writes a Run note saying how long it waited and why it goes. */
    readonly releaseRun: (runId: RunId) => Effect.Effect<void>
    /** The Run's hold, while the Run is open. */
    readonly runHold: (runId: RunId) => Effect.Effect<Option.Option<RunHold>>
    /** Holds of open Runs, oldest first, at most `limit`. */
    readonly heldRuns: (limit: number) => Effect.Effect<ReadonlyArray<HeldRun>>
    /** Changes whenever a hold, a park or a raise changes: the live pages reload on it. */
    readonly changeMark: Effect.Effect<string>
  }
>() {}
