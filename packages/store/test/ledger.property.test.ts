import { assert, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer, Option } from "effect"
import * as fc from "fast-check"
import { copyFileSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { onTestFinished } from "vitest"
import { AgentFailure, InfraFailure } from "@usine/core/attempt/failure"
import { AttemptCanceled, AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import * as Sql from "@usine/store/Sql"
import { REPOSITORY, storesAt, submission, tempDir } from "./fixtures/testLedger"
import { describeEngines } from "@usine/testkit/ledgerEngines"
import { runLedger } from "@usine/testkit/runLedger"

const LOOPS = ["a", "b", "s"] as const
type Loop = (typeof LOOPS)[number]
const ITEMS = [1, 2] as const

const outcomes = {
  ok: new AttemptSucceeded({ result: { commits: [] } }),
  infra: new AttemptFailed({ failure: new InfraFailure({ reason: "flaky" }) }),
  agent: new AttemptFailed({ failure: new AgentFailure({ reason: "wrong" }) }),
  canceled: new AttemptCanceled({ reason: "stopped" })
}

type Command =
  | { readonly _tag: "submit"; readonly loop: Loop; readonly item: number; readonly hash: number; readonly stale: boolean; readonly approval: boolean }
  | { readonly _tag: "approve" | "park" | "cancel" | "retry" | "expire" | "resolve"; readonly pick: number }
  | { readonly _tag: "begin"; readonly pick: number; readonly live: boolean }
  | { readonly _tag: "finish"; readonly pick: number; readonly outcome: "ok" | "infra" | "agent" | "canceled" }
  | { readonly _tag: "revoke" | "claimQueued"; readonly loop: Loop; readonly item: number }
  | { readonly _tag: "reset"; readonly item: number }
  /** What the engine would do next with an open Run: park, begin, finish. */
  | { readonly _tag: "engine"; readonly pick: number; readonly live: boolean; readonly outcome: keyof typeof outcomes }

const loop = fc.constantFrom(...LOOPS)
const item = fc.constantFrom(...ITEMS)
const pick = fc.nat(50)
const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ _tag: fc.constant("submit" as const), loop, item, hash: fc.nat(3), stale: fc.boolean(), approval: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }), weight: 6 },
  { arbitrary: fc.record({ _tag: fc.constantFrom("approve" as const, "park" as const, "cancel" as const, "retry" as const, "expire" as const, "resolve" as const), pick }), weight: 5 },
  { arbitrary: fc.record({ _tag: fc.constant("begin" as const), pick, live: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("finish" as const), pick, outcome: fc.constantFrom("ok" as const, "infra" as const, "agent" as const, "canceled" as const) }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constantFrom("revoke" as const, "claimQueued" as const), loop, item }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("reset" as const), item }), weight: 1 },
  {
    arbitrary: fc.record({
      _tag: fc.constant("engine" as const),
      pick,
      live: fc.boolean(),
      outcome: fc.constantFrom("ok" as const, "infra" as const, "agent" as const)
    }),
    weight: 8
  }
)

interface RunRow {
  readonly id: string
  readonly loop: string
  readonly item_key: string
  readonly generation: number
  readonly state: string
  readonly state_json: string
  readonly version: number
  readonly approval_required: number
  readonly attempts: number
}
interface Snapshot {
  readonly runs: ReadonlyArray<RunRow>
  readonly transitions: ReadonlyMap<string, ReadonlyArray<{ from_state: string | null; to_state: string }>>
  readonly openAttempts: ReadonlyMap<string, string>
  readonly lastAttempts: ReadonlyMap<string, string>
}

const snapshot = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const runs = yield* sql<RunRow>`SELECT r.id, r.loop, r.item_key, r.generation, r.state, r.state_json, r.version,
      r.approval_required,
      (SELECT count(*) FROM usine_attempts a WHERE a.run_id = r.id) AS attempts FROM usine_runs r
      ORDER BY (SELECT min(t.seq) FROM usine_transitions t WHERE t.run_id = r.id)`
  const rows = yield* sql<{ run_id: string; from_state: string | null; to_state: string }>`SELECT run_id, from_state,
      to_state FROM usine_transitions ORDER BY seq`
  const attempts = yield* sql<{ id: string; run_id: string; open: number }>`SELECT id, run_id,
      CASE WHEN outcome_json IS NULL THEN 1 ELSE 0 END AS open FROM usine_attempts ORDER BY run_id, number`
  const transitions = new Map<string, Array<{ from_state: string | null; to_state: string }>>()
  for (const row of rows) transitions.set(row.run_id, [...(transitions.get(row.run_id) ?? []), row])
  return {
    runs,
    transitions,
    openAttempts: new Map(attempts.filter((a) => a.open === 1).map((a) => [a.run_id, a.id])),
    lastAttempts: new Map(attempts.map((a) => [a.run_id, a.id]))
  } satisfies Snapshot
}).pipe(Effect.orDie)


const maxCyclesOf = (budgets: Readonly<Record<Loop, number | undefined>>, name: string) =>
  budgets[name as Loop]

const OPEN = ["Pending", "Waiting", "Queued", "Running"]

/** Aims each action at Runs it can apply to, mostly; with none, at any Run, to exercise the refusals too. */
const pickRun = (cmd: Command & { readonly pick: number }, before: Snapshot): RunRow | undefined => {
  const fits = (run: RunRow): boolean => {
    if (cmd._tag === "park") return run.state === "Pending"
    if (cmd._tag === "approve" || cmd._tag === "expire") return run.state === "Waiting"
    if (cmd._tag === "engine") return OPEN.includes(run.state) && run.state !== "Waiting"
    if (cmd._tag === "begin") return ["Pending", "Queued", "Running"].includes(run.state)
    if (cmd._tag === "finish") return before.openAttempts.has(run.id)
    if (cmd._tag === "retry" || cmd._tag === "resolve") return run.state === "Failed"
    return OPEN.includes(run.state)
  }
  const candidates = before.runs.filter(fits)
  const pool = candidates.length > 0 && cmd.pick % 5 !== 0 ? candidates : before.runs
  return pool[cmd.pick % Math.max(pool.length, 1)]
}

/** Per action, how often the store accepted and refused it over the whole property: each must be accepted sometimes. */
const tally = new Map<string, { accepted: number; refused: number }>()
const count = (action: string, accepted: boolean) => {
  const entry = tally.get(action) ?? { accepted: 0, refused: 0 }
  tally.set(action, accepted ? { ...entry, accepted: entry.accepted + 1 } : { ...entry, refused: entry.refused + 1 })
}

const apply = (cmd: Command, before: Snapshot, step: number, budgets: Readonly<Record<Loop, number | undefined>>) =>
  Effect.gen(function* () {
    const store = yield* runLedger
    const run = "pick" in cmd ? pickRun(cmd, before) : undefined
    const runId = RunId(run?.id ?? "none")
    switch (cmd._tag) {
      case "submit": {
        const current = yield* store.generation(itemKeyOf(REPOSITORY, cmd.item))
        const generation = cmd.stale && current > 0 ? current - 1 : current
        const s = submission({
          loop: cmd.loop,
          number: cmd.item,
          hash: `h${cmd.hash}`,
          generation,
          approvalRequired: cmd.approval,
          maxCycles: budgets[cmd.loop],
          receivedAt: step
        })
        const result = yield* store.recordAndClaim(s)
        if (result._tag === "Claimed") assert.strictEqual(result.run.eventId, s.eventId)
        return
      }
      case "approve": return yield* store.approve(runId)
      case "park": return yield* store.parkForApproval(runId)
      case "cancel": return yield* store.cancel(runId)
      case "retry": return yield* store.retry(runId)
      case "expire": return yield* store.expireApproval(runId, 5)
      case "resolve": return yield* store.resolveFailure(runId)
      case "begin": return yield* store.beginAttempt(runId, { live: () => cmd.live })
      case "finish": {
        const attempt = before.openAttempts.get(runId) ?? before.lastAttempts.get(runId) ?? "none/main/1"
        return yield* store.finishAttempt(AttemptId(attempt), outcomes[cmd.outcome])
      }
      case "revoke": return yield* store.revoke(cmd.loop, itemKeyOf(REPOSITORY, cmd.item))
      case "claimQueued": {
        const newest = yield* store.newestQueued(cmd.loop, itemKeyOf(REPOSITORY, cmd.item))
        if (Option.isSome(newest)) yield* store.claimQueued(newest.value.eventId)
        return
      }
      case "reset": return yield* store.resetCycleBudget(itemKeyOf(REPOSITORY, cmd.item))
      case "engine": {
        if (run?.state === "Pending" && run.approval_required === 1) return yield* store.parkForApproval(runId)
        const attempt = before.openAttempts.get(runId)
        if (attempt !== undefined) return yield* store.finishAttempt(AttemptId(attempt), outcomes[cmd.outcome])
        return yield* store.beginAttempt(runId, { live: () => cmd.live })
      }
    }
  }).pipe(
    Effect.tap(() => count(cmd._tag, true)),
    Effect.catchTags({
      RunNotFound: () => Effect.sync(() => count(cmd._tag, false)),
      RunStateConflict: () => Effect.sync(() => count(cmd._tag, false)),
      StaleRunVersion: () => Effect.sync(() => count(cmd._tag, false)),
      AttemptNotOpen: () => Effect.sync(() => count(cmd._tag, false))
    })
  )

const checkInvariants = (cmd: Command, before: Snapshot, after: Snapshot, budgets: Readonly<Record<Loop, number | undefined>>) => {
  const open = after.runs.filter((r) => OPEN.includes(r.state))
  assert.strictEqual(new Set(open.map((r) => `${r.loop}|${r.item_key}`)).size, open.length, "one open Run per Loop and Item")

  const previous = new Map(before.runs.map((r) => [r.id, r]))
  for (const run of after.runs) {
    const rows = after.transitions.get(run.id) ?? []
    const old = previous.get(run.id)
    const oldRows = before.transitions.get(run.id) ?? []
    // The rows replay the Run's history: opened once, then exactly one row per state change.
    assert.strictEqual(rows[0]?.from_state, null)
    assert.strictEqual(rows[0]?.to_state, "Pending")
    for (let i = 1; i < rows.length; i++) assert.strictEqual(rows[i]?.from_state, rows[i - 1]?.to_state)
    assert.strictEqual(rows.at(-1)?.to_state, run.state)
    if (old === undefined) {
      assert.strictEqual(rows.length, 1, "a new Run has exactly its opening row")
      continue
    }
    assert.strictEqual(rows.length, oldRows.length + (old.state === run.state ? 0 : 1), `rows of ${run.id} after ${cmd._tag}`)
    if (old.state === "Succeeded" || old.state === "Canceled") {
      assert.deepStrictEqual([run.state_json, run.version], [old.state_json, old.version], `${old.state} never changes`)
    }
    if (old.state === "Failed" && run.state !== "Failed") {
      assert.deepStrictEqual([cmd._tag, run.state], ["retry", "Running"], "Failed changes only by operator retry")
    }
  }

  const reserved = new Map<string, number>()
  for (const run of after.runs) {
    if (run.state === "Canceled" && run.attempts === 0) continue
    const key = `${run.loop}|${run.item_key}|${run.generation}`
    reserved.set(key, (reserved.get(key) ?? 0) + 1)
  }
  for (const [key, count] of reserved) {
    const limit = maxCyclesOf(budgets, key.split("|")[0] ?? "")
    if (limit !== undefined) assert.isAtMost(count, limit, `reservations of ${key}`)
  }
}

/** Migrated once, then copied: every run still gets its own fresh ledger file, without paying for the migration. */
const migratedTemplate = (dir: string) =>
  Effect.scoped(Layer.build(Sql.layerUnlocked(join(dir, "template.sqlite")))).pipe(
    Effect.as(join(dir, "template.sqlite")),
    Effect.orDie
  )

describeEngines("ledger invariants", (engine) => {
  it("hold after every step of random submissions and operator actions", { timeout: 300_000 }, async () => {
    tally.clear()
    // SQLite copies a file migrated once; PostgreSQL's fresh databases are copies of a migrated template already.
    const templateDir = mkdtempSync(join(tmpdir(), "usine-template-"))
    const template = engine.name === "sqlite" ? await Effect.runPromise(migratedTemplate(templateDir)) : ""
    onTestFinished(() => rmSync(templateDir, { recursive: true, force: true }))
    const freshLedger = engine.name === "sqlite"
      ? Effect.map(tempDir, (dir) => {
        const file = join(dir, "ledger.sqlite")
        copyFileSync(template, file)
        return file
      })
      : engine.place
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 20, maxLength: 30, size: "max" }),
        fc.record({ a: fc.integer({ min: 1, max: 3 }), b: fc.integer({ min: 1, max: 3 }), s: fc.constant(undefined) }),
        (commands, budgets) =>
          Effect.runPromise(
            Effect.gen(function* () {
              const context = yield* Layer.build(storesAt(engine, yield* freshLedger))
              let before = yield* Effect.provide(snapshot, context)
              for (const [step, cmd] of commands.entries()) {
                yield* Effect.provide(apply(cmd, before, step, budgets), context)
                const after = yield* Effect.provide(snapshot, context)
                checkInvariants(cmd, before, after, budgets)
                before = after
              }
            }).pipe(Effect.scoped)
          )
      ),
      // PostgreSQL's half runs fewer cases: each is about thirty times slower over the wire (1.7 s), and the claim's
      // logic is the same SQL on both engines; what PostgreSQL adds (its locks, its types) shows in any case.
      { numRuns: engine.name === "sqlite" ? 100 : 40 }
    )
    // A store that refused everything would keep every invariant: each action must have been taken sometimes.
    const never = [...tally].filter(([, { accepted }]) => accepted === 0).map(([action]) => action)
    assert.deepStrictEqual(never, [], `never accepted: ${JSON.stringify(Object.fromEntries(tally))}`)
    assert.isAtLeast(tally.size, 10, "most actions were tried")
  })
})
