import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Scope } from "effect"
import * as fc from "fast-check"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { AgentFailure } from "@usine/core/attempt/failure"
import type { Submission } from "@usine/core/event/Submission"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { ClaimResult } from "@usine/store/RunClaims"
import { REPOSITORY, storesAt, submission } from "./fixtures/testLedger"
import { describeEngines } from "@usine/testkit/ledgerEngines"
import { runLedger } from "@usine/testkit/runLedger"

const LOOPS = ["a", "b"] as const
type Command =
  | { readonly _tag: "submit"; readonly loop: (typeof LOOPS)[number]; readonly item: number; readonly hash: number }
  | { readonly _tag: "cancel" | "begin" | "succeed" | "fail"; readonly pick: number }
  | { readonly _tag: "reset" | "revoke"; readonly item: number; readonly loop: (typeof LOOPS)[number] }
  | { readonly _tag: "pause"; readonly loop: (typeof LOOPS)[number]; readonly paused: boolean }
  | { readonly _tag: "restart" }

const loop = fc.constantFrom(...LOOPS)
const item = fc.constantFrom(1, 2, 3)
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ _tag: fc.constant("submit" as const), loop, item, hash: fc.nat(2) }), weight: 8 },
  { arbitrary: fc.record({ _tag: fc.constantFrom("cancel" as const, "begin" as const, "succeed" as const, "fail" as const), pick: fc.nat(20) }), weight: 6 },
  { arbitrary: fc.record({ _tag: fc.constantFrom("reset" as const, "revoke" as const), item, loop }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("pause" as const), loop, paused: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("restart" as const) }), weight: 1 }
)

/** The ledger's own rows, read past the store: what any answer of the store must equal. */
const ledgerAnswer = (s: Submission) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* runLedger
    const [row] = yield* sql<{ status: string; reason: string | null; run_id: string | null }>`SELECT e.status,
        i.reason, r.id AS run_id FROM usine_events e LEFT JOIN usine_ignored_events i ON i.event_id = e.id
        LEFT JOIN usine_runs r ON r.event_id = e.id WHERE e.id = ${s.eventId}`.pipe(Effect.orDie)
    if (row === undefined) return Option.none<ClaimResult>()
    if (row.run_id !== null) {
      if (row.status !== "claimed") return Option.none<ClaimResult>()
      const run = yield* Effect.orDie(store.getRun(RunId(row.run_id)))
      return Option.some<ClaimResult>({ _tag: "Claimed", run, opened: false, superseded: Option.none() })
    }
    return row.reason === null ? Option.none<ClaimResult>() : Option.some<ClaimResult>({ _tag: "Ignored", eventId: s.eventId, reason: row.reason })
  })

/** Moves with every write: SQLite's rows written by the connection; PostgreSQL's next transaction id (writers take one). */
const totalChanges = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.onDialectOrElse({
    pg: () => sql<{ n: number }>`SELECT txid_snapshot_xmax(txid_current_snapshot()) AS n`,
    orElse: () => sql<{ n: number }>`SELECT total_changes() AS n`
  }).pipe(Effect.map((rows) => Number(rows[0]!.n)), Effect.orDie))

const apply = (cmd: Command, submitted: Array<Submission>) =>
  Effect.gen(function* () {
    const store = yield* runLedger
    const open = yield* store.openRuns
    const target = "pick" in cmd ? open[cmd.pick % Math.max(open.length, 1)] : undefined
    switch (cmd._tag) {
      case "submit": {
        const generation = yield* store.generation(itemKeyOf(REPOSITORY, cmd.item))
        const s = submission({ loop: cmd.loop, number: cmd.item, hash: `h${cmd.hash}`, generation, maxCycles: 2, receivedAt: submitted.length })
        submitted.push(s)
        yield* store.recordAndClaim(s)
        return
      }
      case "cancel": if (target) yield* Effect.ignore(store.cancel(target.id)); return
      case "begin": if (target) yield* Effect.ignore(store.beginAttempt(target.id, { live: () => false })); return
      case "succeed":
      case "fail": {
        if (target === undefined) return
        const attempts = yield* store.attempts(target.id)
        const last = attempts.at(-1)
        if (last === undefined || last.outcome !== undefined) return
        const outcome = cmd._tag === "succeed"
          ? new AttemptSucceeded({ result: { commits: [] } })
          : new AttemptFailed({ failure: new AgentFailure({ reason: "no" }) })
        yield* Effect.ignore(store.finishAttempt(last.id, outcome))
        return
      }
      case "reset": yield* Effect.ignore(store.resetCycleBudget(itemKeyOf(REPOSITORY, cmd.item))); return
      case "revoke": yield* Effect.ignore(store.revoke(cmd.loop, itemKeyOf(REPOSITORY, cmd.item))); return
      case "pause": yield* store.setPaused(cmd.loop, cmd.paused); return
      case "restart": return
    }
  })

/** Every Submission so far: where the ledger's answer is final, the store gives it, and without writing a row. */
const check = (submitted: ReadonlyArray<Submission>) =>
  Effect.gen(function* () {
    const store = yield* runLedger
    const sql = yield* SqlClient.SqlClient
    for (const s of submitted) {
      const expected = yield* ledgerAnswer(s)
      if (Option.isNone(expected)) continue
      const before = yield* totalChanges
      assert.deepStrictEqual(yield* store.recordAndClaim(s), expected.value)
      assert.strictEqual(yield* totalChanges, before, "a final answer writes nothing")
    }
    const paused = yield* sql<{ loop: string }>`SELECT loop FROM usine_loop_runtime WHERE paused = 1`.pipe(Effect.orDie)
    assert.deepStrictEqual([...(yield* store.pausedLoops)].sort(), paused.map((r) => r.loop).sort())
  })

describeEngines("RecentClaims (ADR 0080)", (engine) => {
  it.scoped("answers as the ledger's rows do across claims, Attempts, cancels, revokes, resets, pauses and restarts", () =>
    Effect.gen(function* () {
      // Each case's ledger lives as long as the test, across its restarts.
      const scope = yield* Effect.scope
      yield* Effect.promise(() =>
        fc.assert(
          fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 40 }), async (commands) => {
            const file = await Effect.runPromise(Scope.extend(engine.place, scope))
            const submitted: Array<Submission> = []
            // Each restart closes the store (and its memory) and opens the file again.
            const segments: Array<Array<Command>> = [[]]
            for (const cmd of commands) cmd._tag === "restart" ? segments.push([]) : segments.at(-1)!.push(cmd)
            for (const segment of segments) {
              await Effect.runPromise(Effect.scoped(Effect.provide(Effect.gen(function* () {
                yield* check(submitted)
                for (const cmd of segment) {
                  yield* apply(cmd, submitted)
                  yield* check(submitted)
                }
              }), storesAt(engine, file))))
            }
          }),
          // Fewer cases on PostgreSQL, whose every case costs seconds (see ledger.property).
          { numRuns: engine.name === "sqlite" ? 25 : 10 }
        ))
    }), 120_000)
})
