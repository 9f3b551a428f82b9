import { Effect } from "effect"
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
import { fencedSubjects, inertTitle } from "./Harvest/inertText"
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
  /** The agent's commit subjects kept with work held at the pull-request gate; else read from the harvested log. */
  readonly agentSubjects?: ReadonlyArray<string> | undefined
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
 * ADR 0053), then lists its commits against where the change branches off; with `build`, builds the commit that
 * leaves in the same step (`AttemptGit.workSince`).
 */
export const collectWork = Effect.fn("Harvest.collect")(function* (input: {
  readonly git: AttemptGit
  readonly begin: Pick<BeginEntry, "baseSha">
  /** The message of the commit that takes what the agent left uncommitted. */
  readonly message: string
  readonly build?: Parameters<AttemptGit["workSince"]>[0]["build"]
}) {
  const { git } = input
  const { head, tree } = yield* git.collect(input.message)
  const work = yield* git.workSince({ head, tree, baseSha: input.begin.baseSha, ...(input.build === undefined ? {} : { build: input.build }) })
  return { head, tree, ...work }
})

/**
 * What the guards read of a change: its diff with every file as text, the links and submodules it adds, and every
 * path it adds or alters; with `counted`, its lines per file (`undefined` when git could not count them). A diff past
 * `maxDiffBytes` is not read whole (ADR 0085).
 */
export const changeOf = Effect.fn("Harvest.changeOf")(function* (git: AttemptGit, base: string, head: string, maxDiffBytes?: number, counted = false) {
  const read = yield* git.readChange(base, head, { maxBytes: maxDiffBytes, counted })
  const links: Array<LinkEntry> = []
  const paths: Array<string> = []
  for (const change of read.changes) {
    if (change.status !== "D") paths.push(change.path)
    if (change.newMode === GITLINK_MODE) links.push({ kind: "gitlink", path: change.path })
    if (change.newMode === LINK_MODE) links.push({ kind: "symlink", path: change.path, target: yield* git.blob(change.newSha) })
  }
  return { diff: read.diff, links, paths, counts: read.counts }
})

/** Harvest's and the pull-request gate's first half: the agent's work collected, guarded and counted. */
type CollectedChange =
  | { readonly commits: readonly []; readonly nothing: StepResult }
  | {
    /** The agent's own commits since the base, oldest first: never pushed, their subjects only quoted. */
    readonly commits: ReadonlyArray<string>
    /** The agent's collected head: the held work at the pull-request gate. */
    readonly head: string
    /** The commit usine built of the agent's final tree on `base`: what is pushed (issue 31). */
    readonly built: string
    /** `<short sha> <subject>` of each of the agent's commits, oldest first, as the pull request quotes them. */
    readonly subjects: ReadonlyArray<string>
    readonly base: string
    /** The unified diff the guards read, every file as text. */
    readonly diff: string
    readonly changes: Pick<StepResult, "diff">
  }

/** The message of the commit usine pushes: usine's words only, the same for every run of the same Attempt. */
const usineCommitMessage = (run: HarvestInput["run"], attemptNumber: number): string =>
  `${run.loop}: work on ${itemName(run)}\n\nBuilt by usine from the agent's work (Run ${run.id}, Attempt ${attemptNumber}).`

/**
 * Commits what the agent left into the daemon's harvest repository, builds the commit that leaves (the agent's
 * final tree on the base usine chose: the merge-base, or the pull request's head when updating one), refuses the
 * change if a guard objects, and counts its lines. No change: a schedule Loop's `nothing` result, any other Loop's
 * AgentFailure. A failure caused by what the worktree holds is the agent's (an AgentFailure), never retried.
 */
export const collectChange = Effect.fn("Harvest.collectChange")(function* (
  input: Pick<HarvestInput, "git" | "redactor" | "begin" | "policy" | "run" | "attemptNumber"> & Pick<Partial<HarvestInput>, "agentSubjects">
): Effect.fn.Return<CollectedChange, AttemptFailure | TransportError> {
  const { begin, git, redactor, run } = input
  const leftover = `${run.loop}: work on ${itemName(run)}\n\nCommitted by usine for the agent (Run ${run.id}, Attempt ${input.attemptNumber}).`
  const gitFailed = (reason: string) => (error: { readonly message: string }) =>
    Effect.fail(new InfraFailure({ reason, evidence: redactor.redact(error.message) }))
  const message = usineCommitMessage(run, input.attemptNumber)
  const { commits, head, base: mergeBase, built, subjects: listed } = yield* collectWork({
    git,
    begin,
    message: leftover,
    // Usine's commit of the agent's final tree, on the merge-base, or the pull request's head when updating one.
    build: { parent: begin.pullRequest === undefined ? undefined : begin.baseSha, message, at: begin.at, subjects: input.agentSubjects === undefined }
  }).pipe(
    Effect.catchTags({
      GitCommandFailed: (error) =>
        gitFailed(error.step === "parent-tree" || error.step === "commit-tree" ? "building the commit to push failed" : "reading the agent's work with git failed")(error),
      AgentWorkUnreadable: (error) =>
        Effect.fail(new AgentFailure({ reason: `usine refused to read the agent's work: ${redactor.redact(error.reason)}`, evidence: "nothing was pushed" }))
    })
  )
  const base = begin.pullRequest === undefined ? mergeBase : begin.baseSha
  if (built === undefined) {
    if (input.policy.kind === "schedule") return { commits: [], nothing: { commits: [], summary: "the agent made no change; nothing to push" } }
    return yield* new AgentFailure({ reason: "the agent made no change", evidence: `its tree is the tree of ${base.slice(0, 8)}` })
  }
  // Work published from the pull-request gate is usine's commit of the tree: the agent's subjects were kept with it.
  const subjects = input.agentSubjects ?? (listed ?? "")
    .split("\n")
    .filter((line) => line.trim() !== "")
  const maxDiffBytes = input.policy.output?.diffBytes ?? defaultOutputCaps.diffBytes
  const change = yield* changeOf(git, base, built, maxDiffBytes, true).pipe(
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
  const author = `${git.identity.name} <${git.identity.email}>`
  const guards = runGuards({
    ...change,
    leaving: [
      { what: "the commit message", text: message },
      { what: "the commit's author", text: author },
      { what: "the agent's commit subjects the pull request quotes", text: subjects.join("\n") }
    ]
  }, input.policy, redactor)
  if (!guards.ok) return yield* guardFailure(guards.violations)
  // The figures only inform the operator: without them the change still goes out.
  const changes = change.counts === undefined
    ? yield* Effect.logWarning("counting the changed lines failed").pipe(Effect.as({}))
    : { diff: summarizeDiff(change.counts) }
  return { commits, head, built, subjects, base, diff: change.diff, changes }
})

/**
 * From the agent's last word to the pull request: commit what it left, build the commit that leaves (usine's, of
 * the agent's final tree), refuse the change if a guard objects (then nothing is pushed), push to the Run's branch
 * (or back to the pull request's branch), and open the pull request or update the one already open for that branch.
 * A pull request is the Run's only if usine opened it from the Run's own branch: one the agent's HEAD points at is
 * not. Every step can run again after a restart with the same result.
 */
export const harvest = Effect.fn("Harvest.harvest")(function* (
  input: HarvestInput
): Effect.fn.Return<StepResult, AttemptFailure | TransportError> {
  const { begin, git, pullRequests, redactor, run } = input
  const collected = yield* collectChange(input)
  if ("nothing" in collected) return collected.nothing
  const { built, subjects, changes } = collected
  // Computed in the daemon's harvest repository, as the pull-request gate does it, never where the agent wrote.
  if (input.onPatch !== undefined) yield* input.onPatch(boundPatch(redactor.redact(collected.diff)))

  const asFailure = Effect.mapError(pullRequestFailure)
  // The commit recorded before an earlier run's push (a restart, a retry) goes out, never a rebuilt one (ADR 0082);
  // usine's commit is deterministic, so a rebuilt one would be the same.
  const sent = yield* pushOnce({
    git,
    redactor,
    begin,
    runId: run.id,
    attemptNumber: input.attemptNumber,
    ledger: input.pushes,
    build: Effect.succeed(built)
  })
  const pushed = `pushed 1 commit to ${begin.pushBranch}`
  if (begin.pullRequest !== undefined) {
    return {
      commits: [sent],
      ...changes,
      branch: begin.pushBranch,
      pullRequestNumber: begin.pullRequest.number,
      pullRequestUrl: begin.pullRequest.url,
      summary: `${pushed}; pull request #${begin.pullRequest.number} updated`
    }
  }
  const pull = yield* asFailure(
    pullRequests.ensure({
      repository: run.repository,
      head: begin.pushBranch,
      base: begin.baseBranch,
      // The pull request is public: the agent's subjects are quoted as inert text and go through the redactor.
      title: redactor.redact(pullRequestTitle(run, subjects)),
      body: redactor.redact([
        `Work of usine's \`${run.loop}\` Loop on ${itemName(run)}.`,
        ...(agentsOwn(run, subjects).length === 0 ? [] : [`The agent's commits, quoted as it wrote them:\n\n${fencedSubjects(agentsOwn(run, subjects))}`]),
        input.verificationText ?? verificationSection({ commands: input.policy.verify, rounds: input.verification, redactor }),
        `Run \`${run.id}\`, Attempt ${input.attemptNumber}.`,
        ...closingLine(run, input.policy)
      ].join("\n\n")),
      draft: input.policy.pullRequest?.draft ?? false
    })
  )
  return {
    commits: [sent],
    ...changes,
    branch: begin.pushBranch,
    pullRequestNumber: pull.number,
    pullRequestUrl: pull.url,
    summary: `${pushed}; pull request #${pull.number} ${pull.created ? "opened" : "updated"}`
  }
})

/**
 * The agent's first own commit subject says best what the change is, made inert; usine's fallback names the Loop
 * and Item.
 */
const pullRequestTitle = (run: HarvestInput["run"], subjects: ReadonlyArray<string>): string => {
  const first = agentsOwn(run, subjects)[0]
  const title = first === undefined ? "" : inertTitle(first.slice(first.indexOf(" ") + 1))
  return title === "" ? `${run.loop}: ${itemName(run)}` : title
}

/** `<short sha> <subject>` lines but usine's own commits (the agent's leftovers, a salvage, a held commit): they name no change. */
const agentsOwn = (run: HarvestInput["run"], subjects: ReadonlyArray<string>): ReadonlyArray<string> =>
  subjects.filter((line) => {
    const subject = line.slice(line.indexOf(" ") + 1).trim()
    return subject !== "" && !subject.startsWith(`${run.loop}: work on `) && !subject.startsWith(SALVAGE_SUBJECT)
  })
