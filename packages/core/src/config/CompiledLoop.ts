import { Duration } from "effect"
import type { PullRequestApprover, StartApprover } from "./ApprovalConfig"
import type { LoopBudget } from "./BudgetConfig"
import type { CelExpression } from "./CelExpression"
import { type CronSchedule, makeCronSchedule } from "./CronSchedule"
import type { TrustPolicy } from "../trust/TrustPolicy"
import type { LiquidTemplate } from "./LiquidTemplate"
import type { LoopConfig } from "./LoopConfig"
import type { OutputCaps } from "./OutputConfig"
import { selectRepositories } from "./matchRepository"
import type { WorkerConfig } from "./WorkerConfig"
import { defaultPullRequestOptions, type PullRequestOptions, type StatusLabels, withCanceledDefault } from "./WriteBackConfig"

interface LoopCommon {
  readonly name: string
  /** The selector as written; absent means every repository. */
  readonly repositorySelector: ReadonlyArray<string> | undefined
  /** The declared repositories the selector picks. */
  readonly repositories: ReadonlyArray<string>
  readonly if: CelExpression
  readonly prompt: LiquidTemplate
  readonly agent: string
  /** The start gate: `required` parks each Run in Waiting. */
  readonly approval: "required" | "none"
  /** The pull-request gate: `required` parks a verified Run in Reviewing before anything is pushed (ADR 0063). */
  readonly pullRequestApproval: "required" | "none"
  /** Who may approve each gate (ADR 0103): `anyone` with the role, or four eyes. */
  readonly approvers: { readonly start: StartApprover; readonly pullRequest: PullRequestApprover }
  /** The Agent that judges each verified round; absent means none. */
  readonly judge: string | undefined
  readonly maxAttemptMinutes: number | undefined
  readonly verify: ReadonlyArray<string>
  /** Commands run before the agent's first turn, and the minutes they may take. */
  readonly setup: ReadonlyArray<string>
  readonly setupMinutes: number
  /** How a pull request the Run opens is written. */
  readonly pullRequest: PullRequestOptions
  /** `host:port` endpoints its sandboxes may reach. */
  readonly network: ReadonlyArray<string>
  readonly verifyRounds: number
  readonly forbiddenPaths: ReadonlyArray<string>
  readonly maxChangedFiles: number | undefined
  readonly stallMinutes: number | undefined
  readonly approvalTimeoutMinutes: number | undefined
  /** The Workers that may run this Loop's Attempts: those listed, or every Worker that can run its Agent. */
  readonly workers: ReadonlyArray<string>
  readonly budget: LoopBudget
  /** How much of what the agent and its commands print is kept (ADR 0085). */
  readonly output: OutputCaps
  readonly maxOpenPullRequests: number | undefined
  /** Milliseconds before each automatic retry of an InfraFailure; the last repeats, `[]` retries at once. */
  readonly retryBackoffMs: ReadonlyArray<number>
}

/** An issue or pull request Loop: it acts on Items, at most `maxCycles` Runs per Item between resets. */
export interface ItemLoop extends LoopCommon {
  readonly on: "issues" | "pull_requests"
  readonly maxCycles: number
  /** Consecutive no-progress Attempts on an Item that park it; 0 means never. */
  readonly maxNoProgress: number
  /** Who may trigger it, and whose comments its `if:` and prompt see. */
  readonly trust: TrustPolicy
  /** Labels moved on the Item when a Run starts and ends; none when empty; `canceled` defaults to undoing `running`. */
  readonly statusLabels: StatusLabels
  /** Whether the Run keeps one comment on the Item, edited in place. */
  readonly comment: boolean
}

/** A schedule Loop: it acts on Ticks and has no cycle budget. */
export interface ScheduleLoop extends LoopCommon {
  readonly on: "schedule"
  readonly schedule: CronSchedule
}

/** A Loop ready for the triggers: its `if:`, prompt and cron compiled, its references resolved. */
export type CompiledLoop = ItemLoop | ScheduleLoop

const defaultMaxCycles = 3

/** Workers that can run an Agent: those without an `agents` list, and those that list it. */
const workersFor = (agent: string, workers: Readonly<Record<string, WorkerConfig>>): ReadonlyArray<string> =>
  Object.entries(workers)
    .filter(([, worker]) => worker.agents === undefined || worker.agents.includes(agent))
    .map(([name]) => name)

/** Builds the compiled Loop from a Loop that passed every check (`cron` present exactly for schedule Loops). */
export const compileLoop = (
  loop: LoopConfig,
  context: { readonly repositories: ReadonlyArray<string>; readonly workers: Readonly<Record<string, WorkerConfig>> }
): CompiledLoop => {
  const common: LoopCommon = {
    name: loop.name,
    repositorySelector: loop.repositories,
    repositories: selectRepositories(loop.repositories, context.repositories),
    if: loop.if,
    prompt: loop.prompt,
    agent: loop.agent,
    approval: loop.approval.start,
    pullRequestApproval: loop.approval.pullRequest,
    approvers: { start: loop.approval.startBy, pullRequest: loop.approval.pullRequestBy },
    judge: loop.judge,
    maxAttemptMinutes: loop.maxAttemptMinutes,
    verify: loop.verify,
    setup: loop.setup,
    setupMinutes: loop.setupMinutes,
    pullRequest: loop.pullRequest ?? defaultPullRequestOptions,
    network: loop.network,
    verifyRounds: loop.verifyRounds,
    forbiddenPaths: loop.forbiddenPaths,
    maxChangedFiles: loop.maxChangedFiles,
    stallMinutes: loop.stallMinutes,
    approvalTimeoutMinutes: loop.approvalTimeout,
    workers: loop.workers ?? workersFor(loop.agent, context.workers),
    budget: loop.budget,
    output: loop.output,
    maxOpenPullRequests: loop.maxOpenPullRequests,
    retryBackoffMs: loop.retryBackoff.map(Duration.toMillis)
  }
  return loop.on === "schedule"
    ? { ...common, on: "schedule", schedule: makeCronSchedule(loop.cron ?? "", loop.tz ?? "UTC") }
    : {
        ...common,
        on: loop.on,
        maxCycles: loop.maxCycles ?? defaultMaxCycles,
        maxNoProgress: loop.maxNoProgress,
        trust: { mode: loop.trust, trustedAuthors: loop.trustedAuthors },
        statusLabels: withCanceledDefault(loop.statusLabels ?? {}),
        comment: loop.comment
      }
}
