import { Clock, Effect, Option } from "effect"
import { AgentFailure, type AttemptFailure, DefectFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, type AttemptOutcome, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { changesPrompt } from "@usine/engine/ReviewDirective"
import { harvest } from "../Harvest"
import { holdForReview } from "../Harvest/holdForReview"
import { salvage, Salvaged } from "../Salvage"
import { runVerifyRound, verifyEvidence, verifyFeedback } from "../Verify"
import type { TransportError } from "../WorkerTransport"
import { type BeginEntry, type JournalEntry, OutcomeEntry, type SalvageResult, TurnEntry, type VerifyEntry } from "./AttemptJournal"
import { type AttemptContext, gitOfAttempt } from "./AttemptContext"
import { verifySandbox } from "./attemptSandbox"
import { journalRows } from "./journalRows"
import { judgeFeedback } from "./judgeVerdict"
import { retryHarvest } from "./retryHarvest"
import { worktreeTooBig } from "./worktreeTooBig"
import { type Judge, runJudge } from "./runJudge"
import { runSetup } from "./runSetup"
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
const finish = (
  ctx: AttemptContext,
  begin: BeginEntry,
  compute: Effect.Effect<AttemptOutcome, TransportError>,
  // A worktree over the disk limit is not read again to be salvaged (ADR 0084).
  salvage = true
) =>
  Effect.gen(function* () {
    const stored = ctx.journal.find("outcome", () => true)
    if (Option.isSome(stored)) {
      yield* ctx.cursor.emit(journalRows(stored.value))
      return stored.value.outcome
    }
    const outcome = yield* compute
    const salvaged = outcome._tag !== "Failed"
      ? undefined
      : salvage
      ? yield* salvageNote(ctx, begin)
      : { salvage: "Refused" as const, note: "; the work was not salvaged" }
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
export const driveAttempt = Effect.fn("WorkerExecutor.drive")(function* (ctx: AttemptContext, judge?: Judge) {
  const { cursor, journal, request } = ctx
  cursor.rewind()
  const begin = journal.find("begin", () => true)
  if (Option.isNone(begin)) {
    return failed(new DefectFailure({ reason: "the attempt's journal has no beginning", evidence: ctx.attemptDir }))
  }
  yield* cursor.emit(journalRows(begin.value))
  const { policy, review } = request
  if (review?._tag === "Publish") return yield* finish(ctx, begin.value, publish(ctx, begin.value, review))
  // Setup runs once per worktree, before its first turn is journaled; a restart in the middle runs it again.
  if (Option.isNone(journal.find("turn", (t) => t.turn === 1))) {
    const setupFailed = yield* runSetup(ctx)
    if (setupFailed !== undefined) return yield* finish(ctx, begin.value, Effect.succeed(failed(setupFailed)))
  }
  let prompt = review?._tag === "Changes" ? changesPrompt(request.run.task, review.text) : request.run.task
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
    if (policy.verify.length === 0 && judge === undefined) break

    const verified = policy.verify.length === 0 ? undefined : yield* recorded(
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
          sandbox: verifySandbox(ctx, number),
          outputBytes: policy.output?.verifyBytes
        },
        number
      )
    )
    const rounds = `${policy.verifyRounds} feedback round${policy.verifyRounds === 1 ? "" : "s"}`
    let next: { readonly prompt: string; readonly failure: AgentFailure } | undefined
    if (verified !== undefined && !verified.passed) {
      const failure = new AgentFailure({ reason: `verification still fails after ${rounds}`, evidence: verifyEvidence(verified) })
      next = { prompt: verifyFeedback(verified), failure }
    } else if (judge !== undefined) {
      // The judge reads a verified round only: feedback goes back to the agent like a failed verify round (ADR 0063).
      const verdict = yield* runJudge(ctx, judge, { round: number, begin: begin.value, verify: verifyOutput(verified) }).pipe(Effect.either)
      if (verdict._tag === "Left") {
        if (verdict.left._tag !== "InfraFailure") return yield* verdict.left
        return yield* finish(ctx, begin.value, Effect.succeed(failed(verdict.left)))
      }
      if (verdict.right.verdict === "feedback") {
        const failure = new AgentFailure({ reason: `the judge ${judge.name} still asks for changes after ${rounds}`, evidence: verdict.right.reasoning })
        next = { prompt: judgeFeedback(verdict.right), failure }
      }
    }
    if (next === undefined) break
    if (round >= policy.verifyRounds) return yield* finish(ctx, begin.value, Effect.succeed(failed(next.failure)))
    prompt = next.prompt
  }
  const tooBig = yield* worktreeTooBig(ctx)
  if (tooBig !== undefined) return yield* finish(ctx, begin.value, Effect.succeed(failed(tooBig)), false)
  if (policy.pullRequestGate === true) return yield* finish(ctx, begin.value, hold(ctx, begin.value))
  return yield* finish(ctx, begin.value, harvestNow(ctx, begin.value))
})

/** What the judge reads of a verified round: each command, its exit and its output's tail. */
const verifyOutput = (verified: VerifyEntry | undefined): string =>
  verified === undefined
    ? ""
    : verified.results.map((r) => `$ ${r.command} (exit ${r.exitCode ?? "none"})${r.output === "" ? "" : `\n${r.output}`}`).join("\n")

/** A harvest's failures are the Attempt's outcome, never the executor's error. */
const asOutcome = <R>(step: Effect.Effect<AttemptOutcome, AttemptFailure | TransportError, R>) =>
  step.pipe(
    Effect.catchTags({
      InfraFailure: (f) => Effect.succeed(failed(f)),
      AgentFailure: (f) => Effect.succeed(failed(f)),
      DefectFailure: (f) => Effect.succeed(failed(f)),
      RunawayFailure: (f) => Effect.succeed(failed(f)),
      ChildSessionBudgetFailure: (f) => Effect.succeed(failed(f))
    })
  )

/**
 * The pull-request gate (ADR 0063): the verified work is kept in the Worker's mirror and its diff goes to the
 * ledger; the Attempt succeeds with `held` and nothing is pushed.
 */
const hold = (ctx: AttemptContext, begin: BeginEntry) =>
  holdForReview({
    verification: ctx.journal.entries().filter((e): e is VerifyEntry => e._tag === "verify"),
    git: gitOfAttempt(ctx),
    redactor: ctx.settings.redactor,
    begin,
    policy: ctx.request.policy,
    run: ctx.request.run,
    attemptNumber: ctx.request.attempt.number,
    worker: ctx.worker.name
  }).pipe(
    Effect.tap(({ patch }) => (patch === undefined || ctx.request.onPatch === undefined ? Effect.void : ctx.request.onPatch(patch))),
    Effect.map(({ result }): AttemptOutcome => new AttemptSucceeded({ result })),
    asOutcome
  )

/**
 * Approve PR: the Attempt's worktree starts at the held work (the Run's newest salvage); no agent runs and no
 * verify, the harvest pushes and opens the pull request. A worktree elsewhere means the held work is not here.
 */
const publish = (
  ctx: AttemptContext,
  begin: BeginEntry,
  review: { readonly head: string; readonly verification?: string | undefined; readonly subjects?: ReadonlyArray<string> | undefined }
) =>
  begin.startSha === review.head
    ? harvestNow(ctx, begin, review.verification, review.subjects)
    : Effect.succeed(failed(new AgentFailure({
      reason: `the work approved for its pull request is not on the Worker ${ctx.worker.name}`,
      evidence: `held at ${review.head.slice(0, 12)}, the Attempt started at ${begin.startSha.slice(0, 12)}`
    })))

const harvestNow = (ctx: AttemptContext, begin: BeginEntry, verificationText?: string, agentSubjects?: ReadonlyArray<string>) => {
  const { journal, request } = ctx
  const { policy } = request
  const verification = journal.entries().filter((e): e is VerifyEntry => e._tag === "verify")
  return harvest({
    git: gitOfAttempt(ctx),
    pullRequests: ctx.settings.pullRequests,
    redactor: ctx.settings.redactor,
    begin,
    policy,
    run: request.run,
    attemptNumber: request.attempt.number,
    verification,
    verificationText,
    agentSubjects,
    onPatch: request.onPatch,
    pushes: request.pushes
  }).pipe(
    // A GitHub outage at push or pull-request time is retried here, not with a new agent session.
    (step) => retryHarvest(step, { policy: ctx.settings.harvestRetryPolicy, redactor: ctx.settings.redactor }),
    Effect.map((result): AttemptOutcome => new AttemptSucceeded({ result })),
    asOutcome
  )
}
