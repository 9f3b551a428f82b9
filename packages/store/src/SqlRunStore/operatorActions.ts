import { Clock, Effect, Option } from "effect"
import { AttemptCanceled } from "@usine/core/attempt/outcome"
import { approvalEventIdOf } from "@usine/core/ids/EventId"
import type { RunId } from "@usine/core/ids/RunId"
import {
  approve,
  awaitApproval,
  cancelByOperator,
  expireApproval,
  isOpen,
  retry
} from "@usine/core/run/state"
import type { Run } from "@usine/core/run/Run"
import type { RunSetup } from "../RunNote"
import { makeNoteQueries } from "../RunNote/noteQueries"
import type { Amendment } from "../OperatorActions"
import type { Ledger } from "./Ledger"
import { checkVersion, conflict, type RunPatch } from "./RunWriter"

const operator = (reason: string) => ({ actor: "operator", reason }) as const
const engine = (reason: string) => ({ actor: "engine", reason }) as const

const amendmentPatch = (amendment: Amendment | undefined): RunPatch => ({
  ...(amendment?.task === undefined ? {} : { task: amendment.task }),
  ...(amendment?.agent === undefined ? {} : { agent: amendment.agent }),
  ...(amendment?.model === undefined ? {} : { model: amendment.model })
})

const setupOf = (run: Run): RunSetup => ({
  task: run.task,
  agent: run.agent,
  ...(run.model === undefined ? {} : { model: run.model })
})

/** The gates and the operator's actions on one Run; each is one transaction. */
export const makeOperatorActions = (ledger: Ledger) => {
  const { attempts, runs, writer } = ledger
  const notes = makeNoteQueries(ledger.sql)

  return {
    parkForApproval: Effect.fn("ParkedRuns.parkForApproval")(function* (runId: RunId) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        if (state._tag === "Waiting") return run
        if (state._tag !== "Pending") return yield* conflict(run, "park for approval")
        return yield* writer.save(run, { state: awaitApproval(state) }, engine("approval required"))
      }))
    }),

    approve: Effect.fn("OperatorActions.approve")(function* (runId: RunId, expectedVersion?: number) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        if (state._tag !== "Waiting") {
          if (yield* runs.hasApproval(runId)) return { run, approved: false }
          return yield* conflict(run, "approve")
        }
        yield* checkVersion(run, expectedVersion)
        yield* runs.insertApproval(approvalEventIdOf(runId), runId, yield* Clock.currentTimeMillis)
        return { run: yield* writer.save(run, { state: approve(state) }, operator("approved")), approved: true }
      }))
    }),

    retry: Effect.fn("OperatorActions.retry")(function* (
      runId: RunId,
      options?: { readonly amendment?: Amendment; readonly expectedVersion?: number }
    ) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        if (state._tag !== "Failed") return yield* conflict(run, "retry")
        // A newer Run of the same Loop and Item may have opened since; two open Runs of a pair are never allowed.
        const other = yield* runs.openOf(run.loop, run.itemKey)
        if (Option.isSome(other)) {
          return yield* conflict(run, `retry while Run ${other.value.id} of the same Loop and Item is open:`)
        }
        yield* checkVersion(run, options?.expectedVersion)
        const amended = options?.amendment !== undefined
        const retried = yield* writer.save(
          run,
          { state: retry(state), ...amendmentPatch(options?.amendment) },
          operator(amended ? "edited and retried" : "retried")
        )
        // The transition row says only that it was edited; the note keeps what the earlier Attempts were told.
        if (amended) {
          const edited = { _tag: "Edited", before: setupOf(run), after: setupOf(retried) } as const
          yield* notes.append(runId, "operator", edited, retried.updatedAt)
        }
        return retried
      }))
    }),

    cancel: Effect.fn("OperatorActions.cancel")(function* (
      runId: RunId,
      options?: { readonly expectedVersion?: number; readonly reason?: string }
    ) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        if (state._tag === "Canceled") return { run, canceled: false, attempt: Option.none() }
        if (!isOpen(state)) return yield* conflict(run, "cancel")
        yield* checkVersion(run, options?.expectedVersion)
        const reason = options?.reason ?? "canceled by the operator"
        const canceled = yield* writer.save(run, { state: cancelByOperator(state) }, operator(reason))
        const open = yield* attempts.openOf(runId)
        if (Option.isNone(open)) return { run: canceled, canceled: true, attempt: Option.none() }
        yield* attempts.close(open.value.id, new AttemptCanceled({ reason }), yield* Clock.currentTimeMillis)
        return { run: canceled, canceled: true, attempt: yield* attempts.byId(open.value.id) }
      }))
    }),

    expireApproval: Effect.fn("ParkedRuns.expireApproval")(function* (runId: RunId, afterMinutes: number) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        if (state._tag !== "Waiting" && state._tag !== "Reviewing") return yield* conflict(run, "expire the approval of")
        return yield* writer.save(
          run,
          { state: expireApproval(state, afterMinutes) },
          engine(`nobody approved within ${afterMinutes} minutes`)
        )
      }))
    }),

    resolveFailure: Effect.fn("OperatorActions.resolveFailure")(function* (runId: RunId) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const latest = yield* attempts.latestOf(runId)
        const failed = Option.filter(latest, (attempt) => attempt.outcome?._tag === "Failed")
        if (run.state._tag !== "Failed" || Option.isNone(failed)) return yield* conflict(run, "resolve the failure of")
        if (run.resolvedFailureAttemptId === failed.value.id) return run
        return yield* writer.save(run, { resolvedFailureAttemptId: failed.value.id }, operator("failure resolved"))
      }))
    })
  }
}
