import { Context, Layer, Option } from "effect"
import type { GlobalBudget, LoopBudget } from "@usine/core/config/BudgetConfig"
import type { AttemptPolicy } from "./Executor"

/** What the engine needs of one Loop of usine.yaml. */
export interface LoopPolicy {
  /** Parks every Run of the Loop for approval, even one whose Submission did not ask for it. */
  readonly approvalRequired: boolean
  /** An Attempt running longer ends as RunawayFailure; it also bounds the drain wait. */
  readonly maxAttemptMinutes: number | undefined
  /** A Run left Waiting longer is canceled with reason ApprovalTimedOut. */
  readonly approvalTimeoutMinutes: number | undefined
  readonly attempt: AttemptPolicy
  /** Worker names the Loop may run on; absent means every Worker. */
  readonly workers: ReadonlyArray<string> | undefined
  /** Token and cost caps per Run and per UTC day; absent means none. */
  readonly budget?: LoopBudget | undefined
  /** Consecutive no-progress Attempts on an Item that park it; absent or 0 means no brake. Schedule Loops have none. */
  readonly maxNoProgress?: number | undefined
  /** While this many of the Loop's pull requests are open, its new Runs wait; absent means no limit. */
  readonly maxOpenPullRequests?: number | undefined
  /** Milliseconds before each automatic retry of an InfraFailure (the last repeats); absent means the default policy. */
  readonly retryBackoffMs?: ReadonlyArray<number> | undefined
}

/** A Worker and what it can run. */
export interface WorkerSpec {
  readonly name: string
  /** Slots: Attempts this Worker runs at once. */
  readonly maxConcurrentAttempts: number
  /** Agent names whose harness this Worker has. */
  readonly agents: ReadonlyArray<string>
}

export interface LoopPoliciesData {
  readonly loops: Readonly<Record<string, LoopPolicy>>
  readonly workers: ReadonlyArray<WorkerSpec>
  readonly budget?: GlobalBudget | undefined
}

/** Loop and Worker settings, read by the engine; the app builds them from usine.yaml. */
export class LoopPolicies extends Context.Tag("usine/LoopPolicies")<
  LoopPolicies,
  {
    /** The policy of a Loop; None when no such Loop is configured. */
    readonly loop: (name: string) => Option.Option<LoopPolicy>
    /** Every configured Loop by name, as configured now (a reload changes the answer, ADR 0077). */
    readonly loops: () => ReadonlyMap<string, LoopPolicy>
    /** Every configured Worker, as configured now. */
    readonly workers: () => ReadonlyArray<WorkerSpec>
    /** The daemon's daily caps over every Loop, as configured now; undefined means none. */
    readonly budget: () => GlobalBudget | undefined
  }
>() {
  /** From plain data: tests, and the app once it has parsed its config. */
  static readonly layer = (data: LoopPoliciesData) => {
    const loops = new Map(Object.entries(data.loops))
    return Layer.succeed(LoopPolicies, {
      loop: (name) => Option.fromNullable(loops.get(name)),
      loops: () => loops,
      workers: () => data.workers,
      budget: () => data.budget
    })
  }
}
