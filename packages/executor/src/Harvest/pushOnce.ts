import { Effect, Option } from "effect"
import { AgentFailure, type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import type { PushLedger } from "@usine/core/attempt/PushRecord"
import type { RedactorService } from "@usine/core/text/Redactor"
import type { TransportError } from "../WorkerTransport"
import type { BeginEntry } from "../WorkerExecutor/AttemptJournal"
import type { GitCommandFailed } from "../Workspace/WorkspaceFailures"
import { type AttemptGit, isTransient } from "./attemptGit"
import { branchSegment } from "./branchName"

/**
 * `refs/usine/push/<runId>/<attempt number>` in the Worker's mirror: the commit recorded for the push, kept from its
 * record until it is on GitHub, so that a harvest run again pushes that commit rather than a rebuilt one.
 */
const pushLocalRef = (runId: string, attemptNumber: number): string =>
  `refs/usine/push/${branchSegment(runId)}/${attemptNumber}`

const pushFailure = (redactor: RedactorService, branch: string, ownBranch: boolean) => (error: GitCommandFailed): AttemptFailure => {
  const evidence = redactor.redact(error.stderr.trim())
  if (isTransient(error)) return new InfraFailure({ reason: `pushing to ${branch} failed`, evidence })
  if (/stale info|rejected|non-fast-forward|fetch first/i.test(error.stderr)) {
    return new AgentFailure({
      reason: ownBranch
        ? `${branch} moved on GitHub since the Attempt began; nothing was overwritten`
        : `the pull request's branch ${branch} moved since the Attempt began; nothing was pushed`,
      evidence
    })
  }
  return new AgentFailure({ reason: `GitHub refused the push to ${branch}`, evidence })
}

interface PushOnceInput {
  readonly git: AttemptGit
  readonly redactor: RedactorService
  readonly begin: Pick<BeginEntry, "pushBranch" | "leaseSha" | "baseSha" | "pullRequest">
  readonly runId: string
  readonly attemptNumber: number
  /** The ledger's record of the Attempt's push; without it every run of harvest pushes what `build` made. */
  readonly ledger: PushLedger | undefined
  /** The commit to push, made only when the ledger holds none for the Attempt. */
  readonly build: Effect.Effect<string, AttemptFailure | TransportError>
}

/**
 * The push step of harvest (ADR 0082): the commit is recorded in the ledger, and kept in the Worker's mirror, before
 * it is sent. A harvest run again (a restart, a retry) pushes the recorded commit, never a second one, and takes the
 * branch at that commit as its own push: nothing to send. Any other move of the branch since the Attempt began is
 * still refused by the lease (`leaseSha` on the Run's own branch, `baseSha` on a pull request's). Returns the commit
 * that is on the branch.
 */
export const pushOnce = Effect.fn("Harvest.pushOnce")(function* (
  input: PushOnceInput
): Effect.fn.Return<string, AttemptFailure | TransportError> {
  const { begin, git, redactor } = input
  const branch = begin.pushBranch
  const ownBranch = begin.pullRequest === undefined
  const local = pushLocalRef(input.runId, input.attemptNumber)
  const gitFailure = (what: string) => (error: GitCommandFailed) =>
    Effect.fail(new InfraFailure({ reason: what, evidence: redactor.redact(error.stderr) }))
  const forget = git.mirror.deleteRef(local).pipe(Effect.ignoreLogged)
  const send = (sha: string) =>
    git.push(sha, branch, { lease: ownBranch ? begin.leaseSha : begin.baseSha }).pipe(
      Effect.catchTag("GitCommandFailed", (error) => {
        const failure = pushFailure(redactor, branch, ownBranch)(error)
        // A refusal ends the Attempt: the kept commit has served. A transient failure keeps it for the retry.
        return Effect.zipRight(failure._tag === "InfraFailure" ? Effect.void : forget, Effect.fail(failure))
      }),
      Effect.zipRight(forget)
    )

  const remote = yield* git.remoteSha(branch).pipe(Effect.catchTag("GitCommandFailed", gitFailure(`reading ${branch} on GitHub failed`)))
  const recorded = input.ledger === undefined
    ? Option.none()
    : Option.filter(yield* input.ledger.recorded, (push) => push.branch === branch)

  if (Option.isSome(recorded)) {
    const sha = recorded.value.sha
    // The harvest repository borrows only the Attempt's start (ADR 0083): the recorded commit comes from the mirror.
    const here = (yield* git.hasCommit(sha)) || (yield* git.takeFromMirror(local, sha))
    if (Option.contains(remote, sha)) {
      // Our own push, before a restart: the commit is on GitHub; the pull request's text still reads it here.
      if (!here) {
        yield* git.mirror.fetch().pipe(Effect.catchTag("GitCommandFailed", gitFailure(`fetching ${branch} from GitHub failed`)))
        yield* git.takeFromMirror(`refs/heads/${branch}`, sha)
      }
      yield* forget
      return sha
    }
    if (!here) {
      return yield* new AgentFailure({
        reason: `the commit usine recorded for ${branch} is no longer on the Worker; nothing was pushed`,
        evidence: `recorded ${sha.slice(0, 12)}`
      })
    }
    yield* send(sha)
    return sha
  }

  const sha = yield* input.build
  if (Option.contains(remote, sha)) return sha
  yield* git.keepCommit(sha, local).pipe(Effect.catchTag("GitCommandFailed", gitFailure("keeping the commit to push in the mirror failed")))
  if (input.ledger !== undefined) yield* input.ledger.record({ branch, sha })
  yield* send(sha)
  return sha
})
