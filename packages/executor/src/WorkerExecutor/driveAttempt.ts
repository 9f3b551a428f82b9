import { Clock, Effect, Option } from "effect"
import { AgentFailure, type AttemptFailure, DefectFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, type AttemptOutcome, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { harvest } from "../Harvest"
import { salvage, Salvaged } from "../Salvage"
import { runVerifyRound, verifyEvidence, verifyFeedback } from "../Verify"
import type { TransportError } from "../WorkerTransport"
import { type BeginEntry, type JournalEntry, OutcomeEntry, type SalvageResult, TurnEntry, type VerifyEntry } from "./AttemptJournal"
import { type AttemptContext, gitOfAttempt } from "./AttemptContext"
import { verifySandbox } from "./attemptSandbox"
import { journalRows } from "./journalRows"
import { retryHarvest } from "./retryHarvest"
import { runTurn } from "./runTurn"

const failed = (failure: AttemptFailure) => new AttemptFailed({ failure })

/**
 * Pushes a failed Attempt's work to its salvage branch; says what happened, for the outcome's summary and for
 * the journal, whose `Failed` keeps the folder for a later salvage (ADR 0047).
 */
const salvageNote = (ctx: AttemptContext, begin: BeginEntry): Effect.Effect<{ readonly note: string; readonly salvage: SalvageResult }> =>
  salvage({
    git: gitOfAttempt(ctx),
    redactor: ctx.settings.redactor,
    begin,
    runId: ctx.request.run.id,
    attemptNumber: ctx.request.attempt.number
  }).pipe(
    Effect.map((saved) => ({
      salvage: saved._tag,
      note: Salvaged.$match(saved, {
        Saved: ({ branch }) => `; the work is salvaged on ${branch}`,
        Nothing: () => "",
        Refused: () => "; the work was not salvaged: the guards refuse it"
      })
    })),
    Effect.catchAll((error) =>
      Effect.logWarning("salvage failed; the Attempt's folder stays on its Worker").pipe(
        Effect.annotateLogs({ attemptId: ctx.request.attempt.id, error: String(error) }),
        Effect.as({
          salvage: "Failed" as const,
          note: `; the work could not be salvaged (${ctx.settings.redactor.redact(error.message)}): it stays on the Worker ${ctx.worker.name} and is salvaged again later`
        })
      )
    )
  )

/**
 * Records the Attempt's outcome once: a stored outcome is replayed as it is; a new one is computed, a failure's
 * work salvaged, then written to the journal before its row is emitted.
 */
const finish = (ctx: AttemptContext, begin: BeginEntry, compute: Effect.Effect<AttemptOutcome, TransportError>) =>
  Effect.gen(function* () {
    const stored = ctx.journal.find("outcome", () => true)
    if (Option.isSome(stored)) {
      yield* ctx.cursor.emit(journalRows(stored.value))
      return stored.value.outcome
    }
    const outcome = yield* compute
    const salvaged = outcome._tag === "Failed" ? yield* salvageNote(ctx, begin) : undefined
    const summary =
      outcome._tag === "Succeeded"
        ? outcome.result.summary ?? "succeeded"
        : outcome._tag === "Failed"
        ? `${outcome.failure.message}${salvaged?.note ?? ""}`
        : outcome.reason
    const entry = new OutcomeEntry({
      at: yield* Clock.currentTimeMillis,
      outcome,
      summary,
      ...(salvaged === undefined ? {} : { salvage: salvaged.salvage })
    })
    yield* ctx.journal.append(entry)
    yield* ctx.cursor.emit(journalRows(entry))
    return outcome
  })

/** The journal's entry for a step, or the step done now and its entry appended; its rows are emitted either way. */
const recorded = <A extends JournalEntry, E>(ctx: AttemptContext, stored: Option.Option<A>, step: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const entry = Option.isSome(stored) ? stored.value : yield* step
    if (Option.isNone(stored)) yield* ctx.journal.append(entry)
    yield* ctx.cursor.emit(journalRows(entry))
    return entry
  })

/**
 * An Attempt from its prepared workspace to its outcome: agent turns, each followed by a verification round
 * while rounds remain, then harvest. Every step consults the journal first, so the same code resumes after a
 * restart at the step where the last process stopped, and replays the transcript up to there (ADR 0023).
 * Transport errors escape, for the caller to retry the whole replay.
 */
export const driveAttempt = Effect.fn("WorkerExecutor.drive")(function* (ctx: AttemptContext) {
  const { cursor, journal, request } = ctx
  cursor.rewind()
  const begin = journal.find("begin", () => true)
  if (Option.isNone(begin)) {
    return failed(new DefectFailure({ reason: "the attempt's journal has no beginning", evidence: ctx.attemptDir }))
  }
  yield* cursor.emit(journalRows(begin.value))
  const { policy } = request
  let prompt = request.run.task
  for (let round = 0; ; round++) {
    const number = round + 1
    const turn = yield* recorded(
      ctx,
      journal.find("turn", (t) => t.turn === number),
      Effect.map(Clock.currentTimeMillis, (at) => new TurnEntry({ at, turn: number, prompt }))
    )
    const ended = yield* runTurn(ctx, turn).pipe(
      Effect.catchTag("DefectFailure", (defect) => Effect.succeed(defect as AttemptFailure))
    )
    if (ended !== undefined) return yield* finish(ctx, begin.value, Effect.succeed(failed(ended)))
    if (policy.verify.length === 0) break

    const verified = yield* recorded(
      ctx,
      journal.find("verify", (v) => v.round === number),
      runVerifyRound(
        {
          transport: ctx.worker.transport,
          worktree: ctx.worktree,
          commands: policy.verify,
          timeoutMs: ctx.settings.verifyTimeoutMs,
          redactor: ctx.settings.redactor,
          daemonEnv: ctx.settings.daemonEnv,
          sandbox: verifySandbox(ctx, number)
        },
        number
      )
    )
    if (verified.passed) break
    if (round >= policy.verifyRounds) {
      const failure = new AgentFailure({
        reason: `verification still fails after ${policy.verifyRounds} feedback round${policy.verifyRounds === 1 ? "" : "s"}`,
        evidence: verifyEvidence(verified)
      })
      return yield* finish(ctx, begin.value, Effect.succeed(failed(failure)))
    }
    prompt = verifyFeedback(verified)
  }
  const verification = journal.entries().filter((e): e is VerifyEntry => e._tag === "verify")
  const harvested = harvest({
    git: gitOfAttempt(ctx),
    pullRequests: ctx.settings.pullRequests,
    redactor: ctx.settings.redactor,
    begin: begin.value,
    policy,
    run: request.run,
    attemptNumber: request.attempt.number,
    verification
  }).pipe(
    // A GitHub outage at push or pull-request time is retried here, not with a new agent session.
    (step) => retryHarvest(step, { policy: ctx.settings.harvestRetryPolicy, redactor: ctx.settings.redactor }),
    Effect.map((result): AttemptOutcome => new AttemptSucceeded({ result })),
    Effect.catchTags({
      InfraFailure: (f) => Effect.succeed(failed(f)),
      AgentFailure: (f) => Effect.succeed(failed(f)),
      DefectFailure: (f) => Effect.succeed(failed(f)),
      RunawayFailure: (f) => Effect.succeed(failed(f)),
      ChildSessionBudgetFailure: (f) => Effect.succeed(failed(f))
    })
  )
  return yield* finish(ctx, begin.value, harvested)
})
