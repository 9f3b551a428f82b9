import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Effect, Exit, Layer, Option, TestClock } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed } from "@usine/core/attempt/outcome"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import { BrakeStore, type RunHold } from "@usine/store/BrakeStore"
import * as ReadModel from "@usine/store/ReadModel"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { openedRun, submission } from "./fixtures/testLedger"
import { describeEngines, type LedgerEngine } from "@usine/testkit/ledgerEngines"
import type { RunPorts } from "@usine/store/RunPorts"
import { runLedger } from "@usine/testkit/runLedger"
import { allowRows, refuseRows } from "./fixtures/refuseRows"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

type Stores = BrakeStore | RunPorts | ReadModel.ReadModel | SqlClient.SqlClient

const inTempLedger = <A, E>(engine: LedgerEngine, body: Effect.Effect<A, E, Stores>) =>
  Effect.flatMap(engine.place, (place) => {
    const stores = Layer.mergeAll(SqlRunStore.layer, SqlBrakeStore.layer, ReadModel.layer).pipe(
      Layer.provideMerge(engine.open(place))
    )
    return Effect.scoped(Effect.flatMap(Layer.build(stores), (context) => Effect.provide(body, context)))
  })

let item = 1
const openRun = Effect.flatMap(runLedger, (store) => store.recordAndClaim(submission({ number: item++ }))).pipe(Effect.map(openedRun))

const notesOf = (runId: RunId) =>
  Effect.flatMap(ReadModel.ReadModel, (model) => model.run(runId)).pipe(Effect.map((detail) => detail.notes))

const summaries = (runId: RunId) => Effect.map(notesOf(runId), (notes) => notes.map((n) => n.summary))

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*) AS n FROM ${sql(table)}`).pipe(
    Effect.map((rows) => rows[0]?.n ?? -1)
  )

/** Makes the engine refuse every new row of `table`, so the store method writing it fails half-way. */
const refuse = (table: string) => refuseRows(`refuse_${table}`, table, "INSERT")
const allow = (table: string) => allowRows(`refuse_${table}`, table)

/** What the engine's admission loop does each minute while a brake holds the Run. */
const recheck = (hold: Omit<RunHold, "since">, times: number) =>
  Effect.gen(function* () {
    const brakes = yield* BrakeStore
    for (let i = 0; i < times; i++) {
      yield* brakes.holdRun({ ...hold, since: yield* TestClock.currentTimeMillis })
      yield* TestClock.adjust("1 minute")
    }
  })

const failedRun = Effect.gen(function* () {
  const store = yield* runLedger
  const run = yield* openRun
  const begun = yield* store.beginAttempt(run.id, { live: () => true })
  if (begun._tag !== "Started") throw new Error("expected Started")
  yield* store.finishAttempt(begun.attempt.id, new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) }))
  return yield* store.getRun(run.id)
})

describeEngines("Run notes", (engine) => {
  // Hundreds of ledger round trips: on PostgreSQL each is a network one, slower than 5 s on a loaded machine.
  it.scoped("a hold re-checked every minute for 6 hours writes one note, a new reason another, the release one", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const brakes = yield* BrakeStore
      const run = yield* openRun
      const cap = { runId: run.id, kind: "DailyCap", reason: "loop start-dev used 1,200 tokens", until: DAY } as const
      yield* recheck(cap, 300)
      yield* recheck({ ...cap, reason: "loop start-dev used 1,400 tokens" }, 60)
      assert.strictEqual(Option.getOrThrow(yield* brakes.runHold(run.id)).since, 0, "the same kind keeps its start")
      yield* brakes.releaseRun(run.id)
      yield* brakes.releaseRun(run.id)
      assert.deepStrictEqual(yield* summaries(run.id), [
        "held: loop start-dev used 1,200 tokens",
        "held: loop start-dev used 1,400 tokens",
        "released after 6h 0m: the daily cap no longer holds it (usine.yaml changed), or the daemon stopped (a restart checks again)"
      ])
      const [held, , released] = yield* notesOf(run.id)
      assert.deepStrictEqual(held?.body, { _tag: "Held", holdKind: "DailyCap", reason: cap.reason, until: DAY })
      assert.deepStrictEqual([held?.at, held?.actor, held?.afterSeq], [0, "engine", 1], "written after the opening transition")
      assert.strictEqual(released?.at, 6 * HOUR)

      const never = yield* openRun
      yield* brakes.releaseRun(never.id)
      assert.deepStrictEqual(yield* notesOf(never.id), [], "an admission without a hold writes nothing")
    })), 30_000)

  it.scoped("a release says what the ledger shows: a reset quota, a new day, a raise, a merged pull request, a cancel", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const brakes = yield* BrakeStore
      const store = yield* runLedger
      const lastNote = (runId: RunId) => Effect.map(summaries(runId), (all) => all.at(-1))

      const quota = yield* openRun
      yield* brakes.holdAgent({ agent: "codex", until: 2 * HOUR, reason: "429", attemptId: attemptIdOf(quota.id, 1), at: 0 })
      yield* recheck({ runId: quota.id, kind: "AgentQuota", reason: "waiting for quota reset", until: 2 * HOUR }, 120)
      yield* brakes.releaseRun(quota.id)
      assert.strictEqual(yield* lastNote(quota.id), "released after 2h 0m: the provider's quota reset at 1970-01-01T02:00:00.000Z")

      const day = yield* openRun
      yield* recheck({ runId: day.id, kind: "DailyCap", reason: "cap", until: DAY }, 1)
      yield* TestClock.setTime(DAY)
      yield* brakes.releaseRun(day.id)
      assert.strictEqual(yield* lastNote(day.id), "released after 22h 0m: a new UTC day began")

      const raised = yield* openRun
      yield* recheck({ runId: raised.id, kind: "DailyCap", reason: "cap", until: 2 * DAY }, 3)
      yield* brakes.raiseCap({ day: "1970-01-02", scope: "loop", name: "start-dev", tokens: 5000, costUsd: 0 })
      yield* brakes.releaseRun(raised.id)
      assert.strictEqual(yield* lastNote(raised.id), "released after 3m 0s: the operator raised the daily cap of loop start-dev")

      const wip = yield* openRun
      yield* brakes.recordPullRequest("start-dev", "acme/widgets", 40, quota.id)
      yield* recheck({ runId: wip.id, kind: "OpenPullRequests", reason: "1 of 1 open", until: undefined }, 2)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE usine_loop_pull_requests SET closed_at = ${yield* TestClock.currentTimeMillis}`
      yield* brakes.releaseRun(wip.id)
      assert.strictEqual(yield* lastNote(wip.id), "released after 2m 0s: acme/widgets#40 merged or closed")

      const canceled = yield* openRun
      yield* recheck({ runId: canceled.id, kind: "DailyCap", reason: "cap", until: 2 * DAY }, 1)
      yield* store.cancel(canceled.id)
      yield* brakes.releaseRun(canceled.id)
      assert.strictEqual(yield* lastNote(canceled.id), "released after 1m 0s: the Run is Canceled (canceled by the operator)")
      const [, released] = yield* notesOf(canceled.id)
      assert.strictEqual(released?.afterSeq, (yield* store.transitions(canceled.id)).at(-1)?.seq, "after the cancel")
    })), 30_000)

  it.scoped("Edit and retry keeps what the earlier Attempts were told, whole, in a note with the operator", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const store = yield* runLedger
      const failed = yield* failedRun
      const long = `${"Rewrite the parser.\n".repeat(2_000)}And keep the tests green.`
      const first = yield* store.retry(failed.id, { amendment: { task: long, model: "gpt-x" } })
      yield* store.finishAttempt(
        (yield* store.beginAttempt(failed.id, { live: () => true }).pipe(
          Effect.map((b) => (b._tag === "Failed" ? Option.none() : Option.some(b.attempt.id))),
          Effect.map(Option.getOrThrow)
        )),
        new AttemptFailed({ failure: new AgentFailure({ reason: "still no" }) })
      )
      yield* store.retry(failed.id, { amendment: { task: "short again", agent: "claude" } })
      const notes = yield* notesOf(failed.id)
      assert.deepStrictEqual(notes.map((n) => [n.actor, n.summary]), [
        ["operator", "edited and retried: task, model changed"],
        ["operator", "edited and retried: task, agent changed"]
      ])
      assert.deepStrictEqual(notes[0]?.body, {
        _tag: "Edited",
        before: { task: failed.task, agent: "codex" },
        after: { task: long, agent: "codex", model: "gpt-x" }
      })
      assert.deepStrictEqual(notes[1]?.body, {
        _tag: "Edited",
        before: { task: long, agent: "codex", model: "gpt-x" },
        after: { task: "short again", agent: "claude", model: "gpt-x" }
      })
      const editedRetry = (yield* store.transitions(failed.id)).find((t) => t.at === first.updatedAt && t.reason === "edited and retried")
      assert.strictEqual(notes[0]?.afterSeq, editedRetry?.seq, "written after the retry it explains")
      yield* store.retry(failed.id).pipe(Effect.ignore)
      assert.strictEqual((yield* notesOf(failed.id)).length, 2, "a plain retry writes no note")
    })))

  it.scoped("a note and the change it explains commit together: a failed transaction writes neither", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const brakes = yield* BrakeStore
      const store = yield* runLedger
      const run = yield* openRun
      const hold: RunHold = { runId: run.id, kind: "DailyCap", reason: "cap", until: DAY, since: 0 }

      yield* refuse("usine_run_notes")
      const noNote = yield* Effect.exit(brakes.holdRun(hold))
      assert.isTrue(Exit.isFailure(noNote) && Cause.isDie(noNote.cause))
      assert.isTrue(Option.isNone(yield* brakes.runHold(run.id)), "no note, no hold")
      yield* allow("usine_run_notes")

      yield* refuse("usine_run_holds")
      assert.isTrue(Exit.isFailure(yield* Effect.exit(brakes.holdRun(hold))))
      assert.strictEqual(yield* count("usine_run_notes"), 0, "no hold, no note")
      yield* allow("usine_run_holds")

      yield* brakes.holdRun(hold)
      yield* refuse("usine_run_notes")
      assert.isTrue(Exit.isFailure(yield* Effect.exit(brakes.releaseRun(run.id))))
      assert.isTrue(Option.isSome(yield* brakes.runHold(run.id)), "the release rolled back with its note")
      yield* allow("usine_run_notes")
      yield* brakes.releaseRun(run.id)
      assert.strictEqual(yield* count("usine_run_notes"), 2)

      const failed = yield* failedRun
      yield* refuse("usine_run_notes")
      const edit = yield* Effect.exit(store.retry(failed.id, { amendment: { task: "new" } }))
      yield* allow("usine_run_notes")
      assert.isTrue(Exit.isFailure(edit) && Cause.isDie(edit.cause))
      const after = yield* store.getRun(failed.id)
      assert.deepStrictEqual([after.state._tag, after.version, after.task], ["Failed", failed.version, failed.task])

      const sql = yield* SqlClient.SqlClient
      assert.isTrue(Exit.isFailure(yield* Effect.exit(sql`UPDATE usine_run_notes SET summary = 'x'`)), "append-only")
      assert.isTrue(Exit.isFailure(yield* Effect.exit(sql`DELETE FROM usine_run_notes`)), "append-only")
    })))
})

describeEngines("BrakeStore.noteUsageDisagreed (ADR 0086)", (engine) => {
  it.scoped("writes a UsageDisagreed note with both figures, append-only like every note, on the Run's timeline", () =>
    inTempLedger(engine, Effect.gen(function* () {
      const brakes = yield* BrakeStore
      const run = yield* openRun
      yield* TestClock.setTime(5 * MINUTE)
      yield* brakes.noteUsageDisagreed(run.id, { attempt: 1, streamTokens: 0, meteredTokens: 1_860 })
      const [note] = yield* notesOf(run.id)
      assert.deepStrictEqual(note?.body, { _tag: "UsageDisagreed", attempt: 1, streamTokens: 0, meteredTokens: 1_860 })
      assert.deepStrictEqual([note?.at, note?.actor, note?.afterSeq], [5 * MINUTE, "engine", 1])
      assert.strictEqual(
        note?.summary,
        "Attempt 1: the agent's stream reported 0 tokens, usine's model proxy counted 1,860; the caps judged the proxy's count"
      )
      const update = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE usine_run_notes SET summary = 'x'`).pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(update), "migration 0015 kept the table append-only")
    })))
})
