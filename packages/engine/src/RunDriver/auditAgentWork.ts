import { Cause, Effect, Option } from "effect"
import type { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { Run } from "@usine/core/run/Run"
import type { Transition } from "@usine/core/run/Transition"
import { AuditLog } from "@usine/store/AuditLog"
import { RunLookup } from "@usine/store/RunLookup"

/** The person who let a Run's work out: the newest approval of its pull-request gate, else of its start, naming one. */
const releasedBy = (transitions: ReadonlyArray<Transition>): string | undefined => {
  const named = transitions.filter((t) => t.actor === "operator" && t.login !== undefined).sort((a, b) => b.seq - a.seq)
  return (named.find((t) => t.from === "Reviewing" && t.reason.startsWith("pull request approved")) ??
    named.find((t) => t.from === "Waiting" && t.to === "Queued"))?.login
}

/**
 * Puts what an agent's succeeded Attempt sent to GitHub in the audit (ADR 0107): the pull request it opened, or the
 * branch it pushed, with the person who let the work out. Without an audit in the context (tools, tests) nothing is
 * kept; a failed write is logged, never the Attempt's failure.
 */
export const auditAgentWork = (run: Run, outcome: AttemptOutcome) =>
  Effect.gen(function* () {
    if (outcome._tag !== "Succeeded") return
    const { branch, pullRequestNumber, pullRequestUrl } = outcome.result
    if (branch === undefined && pullRequestNumber === undefined) return
    const audit = yield* Effect.serviceOption(AuditLog)
    if (Option.isNone(audit)) return
    const transitions = yield* (yield* RunLookup).transitions(run.id)
    const opened = pullRequestNumber !== undefined && pullRequestNumber !== run.number
    yield* audit.value.append({
      actor: "agent",
      login: releasedBy(transitions),
      action: opened ? "openPullRequest" : "push",
      outcome: "done",
      repository: run.repository,
      loop: run.loop,
      runId: run.id,
      itemKey: run.itemKey,
      detail: branch,
      result: pullRequestUrl ?? (pullRequestNumber === undefined ? undefined : `#${pullRequestNumber}`)
    })
  }).pipe(
    Effect.catchAllCause((cause) => Effect.logError("the audit could not record an agent's work", Cause.pretty(cause))),
    Effect.withSpan("RunDriver.auditAgentWork")
  )
