import { Clock, Data, Effect, Option } from "effect"
import { runGuards } from "./guards/runGuards"
import { changeOf, collectWork } from "./Harvest"
import type { AttemptGit } from "./Harvest/attemptGit"
import { SALVAGE_SUBJECT, salvageBranchName, salvageLocalPrefix, salvageLocalRef, salvagePrefix } from "./Harvest/branchName"
import type { MirrorGit } from "./Workspace/mirrorGit"
import type { BeginEntry } from "./WorkerExecutor/AttemptJournal"
import type { RedactorService } from "@usine/core/text/Redactor"

/** What salvage did with an Attempt's worktree. */
export type Salvaged = Data.TaggedEnum<{
  /** The work is on GitHub, on `branch`. */
  Saved: { readonly branch: string; readonly commits: number }
  /** No commit and no change on top of the base: nothing to keep. */
  Nothing: {}
  /**
   * A guard objected (a secret, a workflow): pushing it anywhere on GitHub would do the harm the guard prevents.
   * Or the agent's git data was not what usine made, and was not read.
   */
  Refused: { readonly evidence: string }
}>
export const Salvaged = Data.taggedEnum<Salvaged>()

interface SalvageInput {
  readonly git: AttemptGit
  readonly redactor: RedactorService
  /** What the Attempt's commits are measured against: its journal's begin entry, or the worktree's base. */
  readonly begin: Pick<BeginEntry, "baseSha" | "forbiddenPaths">
  readonly runId: string
  readonly attemptNumber: number
}

/**
 * Keeps a failed, canceled or interrupted Attempt's work: commits what the agent left, builds usine's commit of its
 * final tree on the base (the agent's own commits, messages and authors stay on the Worker), and pushes that to
 * `usine/salvage/<runId>/<attempt>` (the Attempt's own branch, so a force push is safe). The forbidden-path and
 * secret guards still apply: a pushed branch can run its workflows and a pushed secret is leaked. The size guard
 * does not: a large change is still work worth keeping. Before the push the work gets a local ref in the
 * Worker's mirror, dropped once the push succeeded: when GitHub cannot be reached, the next Attempt of the Run
 * on that Worker still starts from it (ADR 0047).
 */
export const salvage = Effect.fn("Salvage.salvage")(function* (input: SalvageInput) {
  const { git } = input
  const message = `${SALVAGE_SUBJECT}${input.runId}, Attempt ${input.attemptNumber}`
  // Only a tree leaves the machine (issue 31): usine's commit of the agent's final tree, never the agent's commits.
  const collected = yield* collectWork({
    git,
    begin: input.begin,
    message,
    build: { message, at: yield* Clock.currentTimeMillis, subjects: false }
  }).pipe(
    Effect.map((work) => ({ work })),
    Effect.catchTag("AgentWorkUnreadable", (error) => Effect.succeed({ refused: error.reason }))
  )
  if ("refused" in collected) return Salvaged.Refused({ evidence: collected.refused })
  const { work } = collected
  const built = work.built
  if (work.commits.length === 0 || built === undefined) return Salvaged.Nothing()
  // A diff too large to read whole cannot be guarded, so it goes nowhere (ADR 0085).
  const read = yield* changeOf(git, work.base, built).pipe(
    Effect.map((change) => ({ change })),
    Effect.catchTag("GitCommandFailed", (error) =>
      (error.outputDropped ?? 0) > 0 ? Effect.succeed({ tooLarge: error.outputDropped ?? 0 }) : Effect.fail(error)
    )
  )
  if ("tooLarge" in read) return Salvaged.Refused({ evidence: `the change's diff is too large to read (${read.tooLarge} bytes over)` })
  const { change } = read
  const guards = runGuards({
    ...change,
    leaving: [{ what: "the commit message", text: message }, { what: "the commit's author", text: `${git.identity.name} <${git.identity.email}>` }]
  }, { forbiddenPaths: input.begin.forbiddenPaths, maxChangedFiles: undefined }, input.redactor)
  if (!guards.ok) {
    return Salvaged.Refused({ evidence: guards.violations.map((v) => `${v.guard}: ${v.path ?? ""} ${v.detail}`).join("\n") })
  }
  const branch = salvageBranchName(input.runId, input.attemptNumber)
  const local = salvageLocalRef(input.runId, input.attemptNumber)
  yield* git.keepCommit(built, local)
  yield* git.push(built, branch, { force: true })
  yield* git.mirror.deleteRef(local).pipe(Effect.ignoreLogged)
  return Salvaged.Saved({ branch, commits: work.commits.length })
})

/**
 * The newest salvage of a Run, so the next Attempt starts where the last one stopped: among the salvage branches
 * the mirror just fetched from GitHub and the local salvage refs whose push did not happen (`branch` is then the
 * full ref). For the same Attempt the local ref wins: it is only left when its push failed.
 */
export const newestSalvage = Effect.fn("Salvage.newest")(function* (git: MirrorGit, runId: string) {
  const prefix = salvagePrefix(runId)
  const localPrefix = salvageLocalPrefix(runId)
  const pushed = (yield* git.branches(prefix)).map((entry) => ({ ...entry, attempt: Number(entry.branch.slice(prefix.length)), local: false }))
  const local = (yield* git.refs(localPrefix)).map((entry) => ({
    branch: entry.ref,
    sha: entry.sha,
    attempt: Number(entry.ref.slice(localPrefix.length)),
    local: true
  }))
  const found = [...pushed, ...local]
    .filter((entry) => Number.isInteger(entry.attempt))
    .sort((a, b) => b.attempt - a.attempt || Number(b.local) - Number(a.local))
  return Option.map(Option.fromNullable(found[0]), ({ branch, sha }) => ({ branch, sha }))
})
