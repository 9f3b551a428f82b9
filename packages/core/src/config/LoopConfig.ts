import { Duration, Either, Schema } from "effect"
import { CelExpressionFromString, compileCel } from "./CelExpression"
import { Interval, Name, NetworkEndpoint, NonEmptyString, NonNegativeInt, PositiveInt, PositiveMinutes, RepositoryPattern } from "./ConfigScalars"
import { CronPatternString, TimeZone } from "./CronSchedule"
import { GitHubLogin, TrustMode } from "../trust/TrustPolicy"
import { LiquidTemplateFromString } from "./LiquidTemplate"
import { ApprovalConfig, defaultApproval } from "./ApprovalConfig"
import { defaultMaxNoProgress, LoopBudget } from "./BudgetConfig"
import { PullRequestOptions, StatusLabels } from "./WriteBackConfig"
import { defaultOutputCaps, OutputConfig } from "./OutputConfig"

const LoopTrigger = Schema.Literal("issues", "pull_requests", "schedule")
type LoopTrigger = typeof LoopTrigger.Type

const always = Either.getOrThrow(compileCel("true"))

/**
 * One Loop as written in the file. Rules that tie keys together (`cron` only with `on: schedule`, the Agent
 * exists) are checked by `checkCombinations` and `checkReferences`; `compileLoop` turns this into a `CompiledLoop`.
 */
export const LoopConfig = Schema.Struct({
  name: Name,
  on: LoopTrigger,
  /** Repository names or globs (`acme/*`); absent means every repository. */
  repositories: Schema.optional(Schema.Array(RepositoryPattern)),
  if: Schema.optionalWith(CelExpressionFromString, { default: () => always }),
  prompt: LiquidTemplateFromString,
  agent: Name,
  /** The start gate, and the pull-request gate (ADR 0063). */
  approval: Schema.optionalWith(ApprovalConfig, { default: () => defaultApproval }),
  /** An Agent that reviews each verified round (task, diff, verify output) and answers pass or feedback (ADR 0063). */
  judge: Schema.optional(Name),
  maxCycles: Schema.optional(PositiveInt).pipe(Schema.fromKey("max_cycles")),
  cron: Schema.optional(CronPatternString),
  tz: Schema.optional(TimeZone),
  maxAttemptMinutes: Schema.optional(PositiveInt).pipe(Schema.fromKey("max_attempt_minutes")),
  verify: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] }),
  /** Commands run in the worktree before the agent's first turn, sandboxed as `verify`; a failure is `SetupFailed`. */
  setup: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [] }),
  setupMinutes: Schema.optionalWith(PositiveMinutes, { default: () => 10 }).pipe(Schema.fromKey("setup_minutes")),
  /** How the pull request a Run opens is written: `Closes #N`, draft, labels, reviewers. */
  pullRequest: Schema.optional(PullRequestOptions).pipe(Schema.fromKey("pull_request")),
  /** Labels moved on the Item when a Run starts and ends. */
  statusLabels: Schema.optional(StatusLabels).pipe(Schema.fromKey("status_labels")),
  /** One comment on the Item linking the Run and its pull request, edited in place as the Run moves. */
  comment: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  /** Endpoints the agent's and the `verify` commands' sandbox may reach (package registries), ADR 0054. */
  network: Schema.optionalWith(Schema.Array(NetworkEndpoint), { default: () => [] }),
  verifyRounds: Schema.optionalWith(NonNegativeInt, { default: () => 2 }).pipe(Schema.fromKey("verify_rounds")),
  forbiddenPaths: Schema.optionalWith(Schema.Array(NonEmptyString), { default: () => [".github/workflows/**"] }).pipe(
    Schema.fromKey("forbidden_paths")
  ),
  maxChangedFiles: Schema.optional(PositiveInt).pipe(Schema.fromKey("max_changed_files")),
  stallMinutes: Schema.optional(PositiveMinutes).pipe(Schema.fromKey("stall_minutes")),
  /** Minutes a Run may wait for approval. */
  approvalTimeout: Schema.optional(PositiveInt).pipe(Schema.fromKey("approval_timeout")),
  /** The Workers this Loop may use; absent means every Worker that can run its Agent. */
  workers: Schema.optional(Schema.Array(Name)),
  /** How much of what the agent and its commands print is kept (ADR 0085). */
  output: Schema.optionalWith(OutputConfig, { default: () => defaultOutputCaps }),
  /** Token and cost caps per Run and per day. */
  budget: Schema.optionalWith(LoopBudget, { default: () => ({}) }),
  /** Consecutive no-progress Attempts on an Item that park it on Needs you; 0 turns the brake off. */
  maxNoProgress: Schema.optionalWith(NonNegativeInt, { default: () => defaultMaxNoProgress }).pipe(
    Schema.fromKey("max_no_progress")
  ),
  /**
   * The wait before each automatic retry of an InfraFailure: the first after Attempt 1, the next after Attempt 2,
   * the last repeated (seed 000 §17; ADR 0050). `[]` retries at once.
   */
  retryBackoff: Schema.optionalWith(Schema.Array(Interval), {
    default: () => [Duration.minutes(1), Duration.minutes(4)]
  }).pipe(Schema.fromKey("retry_backoff")),
  /** While this many of the Loop's pull requests are open, it starts no new Run. */
  maxOpenPullRequests: Schema.optional(PositiveInt).pipe(Schema.fromKey("max_open_pull_requests")),
  /** Who may trigger an issue or pull request Loop (ADR 0032, 0055); `anyone` is warned about at startup. */
  trust: Schema.optionalWith(TrustMode, { default: () => "collaborators" as const }),
  /** Logins trusted whatever their access, bots included (`renovate[bot]`). */
  trustedAuthors: Schema.optionalWith(Schema.Array(GitHubLogin), { default: () => [] }).pipe(
    Schema.fromKey("trusted_authors")
  )
})
export type LoopConfig = typeof LoopConfig.Type
