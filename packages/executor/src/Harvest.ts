import { Effect, Option } from "effect"
import { AgentFailure, type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import { summarizeDiff } from "@usine/core/attempt/DiffSummary"
import type { StepResult } from "@usine/core/attempt/outcome"
import { boundPatch, type HeldPatch } from "@usine/core/attempt/Review"
import type { AttemptPolicy } from "@usine/engine/Executor"
import { guardFailure, runGuards } from "./guards/runGuards"
import { SALVAGE_SUBJECT } from "./Harvest/branchName"
import type { TransportError } from "./WorkerTransport"
import type { AttemptGit } from "./Harvest/attemptGit"
import { pushOnce } from "./Harvest/pushOnce"
import { GITLINK_MODE, LINK_MODE } from "./Harvest/parseRawChanges"
import type { LinkEntry } from "./guards/LinkEntries"
import { closingLine } from "./Harvest/closingLine"
import { verificationSection } from "./Harvest/verificationSection"
import type { BeginEntry, VerifyEntry } from "./WorkerExecutor/AttemptJournal"
import type { PullRequestCallFailed, PullRequests } from "@usine/github/PullRequests"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import type { RedactorService } from "@usine/core/text/Redactor"
import type { PushLedger } from "@usine/core/attempt/PushRecord"

export interface HarvestInput {
  readonly git: AttemptGit
  readonly pullRequests: PullRequests["Type"]
  readonly redactor: RedactorService
  readonly begin: BeginEntry
  readonly policy: Pick<AttemptPolicy, "forbiddenPaths" | "maxChangedFiles" | "kind" | "verify" | "pullRequest" | "output">
  readonly run: { readonly id: string; readonly loop: string; readonly repository: string; readonly number?: number | undefined }
  readonly attemptNumber: number
  /** The Attempt's verification rounds, oldest first: the pull request's evidence. */
  readonly verification: ReadonlyArray<VerifyEntry>
  /** The verification section as the held Attempt wrote it, for work published after the pull-request gate. */
  readonly verificationText?: string | undefined
  /** Keeps the collected change's bounded diff with the Attempt (issue 21), before anything is pushed. */
  readonly onPatch?: ((patch: HeldPatch) => Effect.Effect<void>) | undefined
  /** The ledger's record of the Attempt's push (ADR 0082): a harvest run again pushes that commit, or knows it pushed it. */
  readonly pushes?: PushLedger | undefined
}

/** A GitHub call failed: a transient one may succeed on the next Attempt, any other needs the operator. */
export const pullRequestFailure = (error: PullRequestCallFailed): AttemptFailure =>
  error.transient
    ? new InfraFailure({ reason: error.message, evidence: "", ...(error.retryAt === undefined ? {} : { retryAt: error.retryAt }) })
    : new AgentFailure({ reason: error.message, evidence: "" })

const itemName = (run: HarvestInput["run"]) => (run.number === undefined ? "a scheduled run" : `#${run.number}`)

/**
 * Brings the agent's commits and what it left uncommitted into the daemon's harvest repository (read as data,
 * ADR 0053), then lists its commits against where the change branches off.
 */
export const collectWork = Effect.fn("Harvest.collect")(function* (input: {
  readonly git: AttemptGit
  readonly begin: Pick<BeginEntry, "baseSha">
  /** The message of the commit that takes what the agent left uncommitted. */
  readonly message: string
}) {
  const { git } = input
  const head = yield* git.collect(input.message)
  const base = yield* git.mergeBase(input.begin.baseSha, head)
  const commits = yield* git.commitsSince(base, head)
  return { head, base, commits }
})

/** What the guards read of a change: its diff with every file as text, and the links and submodules it adds. */
export const changeOf = Effect.fn("Harvest.changeOf")(function* (git: AttemptGit, base: string, head: string, maxDiffBytes?: number) {
  const diff = yield* git.diff(base, head, maxDiffBytes)
  const links: Array<LinkEntry> = []
  for (const change of yield* git.rawChanges(base, head)) {
    if (change.newMode === GITLINK_MODE) links.push({ kind: "gitlink", path: change.path })
    if (change.newMode === LINK_MODE) links.push({ kind: "symlink", path: change.path, target: yield* git.blob(change.newSha) })
  }
  return { diff, links }
})

/** Harvest's and the pull-request gate's first half: the agent's work collected, guarded and counted. */
export type CollectedChange =
  | { readonly commits: readonly []; readonly nothing: StepResult }
  | {
    readonly commits: ReadonlyArray<string>
    readonly head: string
    readonly base: string
    /** The unified diff the guards read, every file as text. */
    readonly diff: string
    readonly changes: Pick<StepResult, "diff">
  }

/**
 * Commits what the agent left into the daemon's harvest repository, refuses the change if a guard objects, and
 * counts its lines. No commit: a schedule Loop's `nothing` result, any other Loop's AgentFailure.
 */
export const collectChange = Effect.fn("Harvest.collectChange")(function* (
  input: Pick<HarvestInput, "git" | "redactor" | "begin" | "policy" | "run" | "attemptNumber">
): Effect.fn.Return<CollectedChange, AttemptFailure | TransportError> {
  const { begin, git, redactor, run } = input
  const message = `${run.loop}: work on ${itemName(run)}\n\nCommitted by usine for the agent (Run ${run.id}, Attempt ${input.attemptNumber}).`
  const { commits, head, base } = yield* collectWork({ git, begin, message }).pipe(
    Effect.catchTags({
      GitCommandFailed: (error) =>
        Effect.fail(new InfraFailure({ reason: "reading the agent's work with git failed", evidence: redactor.redact(error.message) })),
      AgentWorkUnreadable: (error) =>
        Effect.fail(new AgentFailure({ reason: `usine refused to read the agent's work: ${error.reason}`, evidence: "nothing was pushed" }))
    })
  )
  if (commits.length === 0) {
    if (input.policy.kind === "schedule") return { commits: [], nothing: { commits: [], summary: "the agent made no change; nothing to push" } }
    return yield* new AgentFailure({ reason: "the agent made no change", evidence: `no commit on top of ${base.slice(0, 8)}` })
  }
  const maxDiffBytes = input.policy.output?.diffBytes ?? defaultOutputCaps.diffBytes
  const change = yield* changeOf(git, base, head, maxDiffBytes).pipe(
    Effect.catchTag("GitCommandFailed", (error): Effect.Effect<never, AgentFailure | InfraFailure> =>
      // The change itself is too large to read: the agent's doing, not worth another Attempt as it stands (ADR 0085).
      (error.outputDropped ?? 0) > 0
        ? Effect.fail(new AgentFailure({
          reason: `the change is too large: its diff is over ${maxDiffBytes} bytes (output.diff_bytes)`,
          evidence: `git diff printed ${error.outputDropped} bytes past the cap; the change was not read whole, and no pull request was opened`
        }))
        : Effect.fail(new InfraFailure({ reason: "computing the diff failed", evidence: redactor.redact(error.message) }))
    )
  )
  const guards = runGuards(change, input.policy, redactor)
  if (!guards.ok) return yield* guardFailure(guards.violations)
  // The figures only inform the operator: without them the change still goes out.
  const changes = yield* git.numstat(base, head).pipe(
    Effect.map((files) => ({ diff: summarizeDiff(files) })),
    Effect.catchTag("GitCommandFailed", (error) =>
      Effect.logWarning("counting the changed lines failed", redactor.redact(error.message)).pipe(Effect.as({}))
    )
  )
  return { commits, head, base, diff: change.diff, changes }
})

/**
 * From the agent's last word to the pull request: commit what it left, refuse the change if a guard objects (then
 * nothing is pushed), push to the Run's branch (or back to the pull request's branch), and open the pull request
 * or update the one already open for that branch. A pull request the agent opened itself is found and recorded.
 * Every step can run again after a restart with the same result.
 */
export const harvest = Effect.fn("Harvest.harvest")(function* (
  input: HarvestInput
): Effect.fn.Return<StepResult, AttemptFailure | TransportError> {
  const { begin, git, pullRequests, redactor, run } = input
  const collected = yield* collectChange(input)
  if ("nothing" in collected) return collected.nothing
  const { commits, head, base, changes } = collected
  // Computed in the daemon's harvest repository, as the pull-request gate does it, never where the agent wrote.
  if (input.onPatch !== undefined) yield* input.onPatch(boundPatch(redactor.redact(collected.diff)))

  const asFailure = Effect.mapError(pullRequestFailure)
  // One listing answers both looks: a pull request the agent opened itself, and the one already open from our branch.
  const open = yield* asFailure(pullRequests.findOpen(run.repository, { sha: head, head: begin.pushBranch }))
  const opened = open.byCommit
  if (Option.isSome(opened) && opened.value.headRef !== begin.pushBranch) {
    return {
      commits,
      ...changes,
      branch: opened.value.headRef,
      pullRequestNumber: opened.value.number,
      pullRequestUrl: opened.value.url,
      summary: `the agent opened pull request #${opened.value.number} itself`
    }
  }

  // The commit recorded before an earlier run's push (a restart, a retry) goes out, never a rebuilt one (ADR 0082).
  const sent = yield* pushOnce({
    git,
    redactor,
    begin,
    runId: run.id,
    attemptNumber: input.attemptNumber,
    ledger: input.pushes,
    build: Effect.succeed(head)
  })
  const shipped = sent === head ? commits : yield* git.commitsSince(base, sent).pipe(Effect.orElseSucceed(() => commits))
  const pushed = `pushed ${shipped.length} commit${shipped.length === 1 ? "" : "s"} to ${begin.pushBranch}`
  if (begin.pullRequest !== undefined) {
    return {
      commits: shipped,
      ...changes,
      branch: begin.pushBranch,
      pullRequestNumber: begin.pullRequest.number,
      pullRequestUrl: begin.pullRequest.url,
      summary: `${pushed}; pull request #${begin.pullRequest.number} updated`
    }
  }
  const subjects = yield* git
    .log(["--reverse", "--format=%h %s", `${base}..${sent}`])
    .pipe(Effect.orElseSucceed(() => ""))
  const pull = yield* asFailure(
    pullRequests.ensure({
      repository: run.repository,
      head: begin.pushBranch,
      base: begin.baseBranch,
      // The listing above was the look by head branch. One opened from the branch since then makes GitHub answer
      // 422 "already exists", and `ensure` looks again.
      ...(open.byHead === undefined ? {} : { existing: open.byHead }),
      // The pull request is public: the agent's commit subjects go through the redactor like the evidence.
      title: redactor.redact(pullRequestTitle(run, subjects)),
      body: redactor.redact([
        `Work of usine's \`${run.loop}\` Loop on ${itemName(run)}.`,
        subjects.trim().split("\n").map((line) => `- ${line}`).join("\n"),
        input.verificationText ?? verificationSection({ commands: input.policy.verify, rounds: input.verification, redactor }),
        `Run \`${run.id}\`, Attempt ${input.attemptNumber}.`,
        ...closingLine(run, input.policy)
      ].join("\n\n")),
      draft: input.policy.pullRequest?.draft ?? false
    })
  )
  return {
    commits: shipped,
    ...changes,
    branch: begin.pushBranch,
    pullRequestNumber: pull.number,
    pullRequestUrl: pull.url,
    summary: `${pushed}; pull request #${pull.number} ${pull.created ? "opened" : "updated"}`
  }
})

/** The agent's first own commit subject says best what the change is; usine's fallback names the Loop and Item. */
const pullRequestTitle = (run: HarvestInput["run"], subjects: string): string => {
  const first = subjects
    .split("\n")
    .map((line) => line.slice(line.indexOf(" ") + 1).trim())
    // usine's own commits (the agent's leftovers, a salvage) name no change: the agent's first subject does.
    .find((subject) => subject !== "" && !subject.startsWith(`${run.loop}: work on `) && !subject.startsWith(SALVAGE_SUBJECT))
  return (first ?? `${run.loop}: ${itemName(run)}`).slice(0, 200)
}
