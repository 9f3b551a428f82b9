import { statSync } from "node:fs"
import { Effect, Layer, Schema } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"
import { AgentFailure } from "@usine/core/attempt/failure"
import { AttemptFailed, AttemptSucceeded } from "@usine/core/attempt/outcome"
import { Submission } from "@usine/core/event/Submission"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { approvalEventIdOf } from "@usine/core/ids/EventId"
import { runIdOf } from "@usine/core/ids/RunId"
import { Run } from "@usine/core/run/Run"
import { Failed, Queued, Running, type RunState, Succeeded, Waiting } from "@usine/core/run/state"
import * as Sql from "@usine/store/Sql"
import { AttemptFromRow } from "@usine/store/SqlRunStore/AttemptRow"
import { RunFromRow } from "@usine/store/SqlRunStore/RunRow"
import { type BareSqlite, openForBulkLoad } from "./BareSqlite"
import { itemPayload } from "./itemPayload"
import { itemSubmission } from "./itemSubmission"

export const REPOSITORIES = 100
/** Seeded Events are received one second apart from here on. */
export const SEED_EPOCH = Date.UTC(2026, 0, 1)

const encodeSubmission = Schema.encodeSync(Schema.parseJson(Submission))
const encodeRun = Schema.encodeSync(RunFromRow)
const encodeAttempt = Schema.encodeSync(AttemptFromRow)

/**
 * Seeded Event i is content version `i & 1` of pair `i >> 1`; pair p is Loop `build` or `review` (p & 1) on
 * Item p >> 1, spread over REPOSITORIES repositories. So every Loop and Item holds two closed Runs of three allowed.
 */
export const pairOf = (pair: number, loop?: string) => {
  const item = pair >> 1
  const repository = `bench-org/repo-${item % REPOSITORIES}`
  return { loop: loop ?? (pair & 1 ? "review" : "build"), repository, number: Math.floor(item / REPOSITORIES) + 1 }
}

export const pairCount = (events: number): number => Math.ceil(events / 2)

/** One seeded Run in twenty failed (an AgentFailure), the rest succeeded: what Needs you and the Runs filters see. */
export const closedStateOf = (event: number): "Succeeded" | "Failed" => (event % 20 === 7 ? "Failed" : "Succeeded")

/** The Submission of content `version` of a pair, as the trigger would build it from the payload. */
export const pairSubmission = (
  pair: number,
  version: number,
  receivedAt: number,
  options: { readonly loop?: string; readonly approvalRequired?: boolean } = {}
): Submission => {
  const { loop, number, repository } = pairOf(pair, options.loop)
  return itemSubmission({
    loop,
    repository,
    number,
    payload: itemPayload(repository, number, version),
    receivedAt,
    ...(options.approvalRequired === undefined ? {} : { approvalRequired: options.approvalRequired })
  })
}

export interface OpenMix {
  readonly waiting: number
  readonly queued: number
  readonly running: number
}

/** Open Runs go on Items no closed pair uses: Waiting and Queued on Loop `gated`, Running on `build`. */
export const openPair = (events: number, index: number): number => 2 * (pairCount(events) + 2 + index)

export interface Seeded {
  readonly events: number
  readonly open: OpenMix
  readonly rows: number
  readonly ms: number
  readonly bytes: number
}

interface Statements {
  readonly event: (s: Submission, recordedAt: number) => void
  readonly run: (run: Run) => void
  readonly transition: (runId: string, from: string | null, to: string, actor: string, reason: string, at: number) => void
  readonly attempt: (attempt: Attempt) => void
  readonly approval: (eventId: string, runId: string, at: number) => void
}

const statements = (db: BareSqlite): Statements => {
  const event = db.prepare(`INSERT INTO usine_events (id, loop, item_key, repository, number, generation, content_hash,
    submission_json, received_at, recorded_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'claimed')`)
  const run = db.prepare(`INSERT INTO usine_runs (id, event_id, loop, item_key, repository, number, generation, state,
    state_json, version, task, agent, model, approval_required, received_at, created_at, updated_at,
    resolved_failure_attempt_id) VALUES (@id, @event_id, @loop, @item_key, @repository, @number, @generation, @state,
    @state_json, @version, @task, @agent, @model, @approval_required, @received_at, @created_at, @updated_at,
    @resolved_failure_attempt_id)`)
  const transition = db.prepare(
    "INSERT INTO usine_transitions (run_id, from_state, to_state, actor, reason, at) VALUES (?, ?, ?, ?, ?, ?)"
  )
  const attempt = db.prepare(`INSERT INTO usine_attempts (id, run_id, step, number, started_at, ended_at, outcome_json,
    worker, session) VALUES (@id, @run_id, @step, @number, @started_at, @ended_at, @outcome_json, @worker, @session)`)
  const approval = db.prepare("INSERT INTO usine_approvals (event_id, run_id, approved_at) VALUES (?, ?, ?)")
  return {
    event: (s, recordedAt) =>
      event.run(s.eventId, s.loop, s.itemKey, s.repository, s.number ?? null, s.generation, s.contentHash ?? null,
        encodeSubmission(s), s.receivedAt, recordedAt),
    run: (r) => run.run(encodeRun(r)),
    transition: (runId, from, to, actor, reason, at) => transition.run(runId, from, to, actor, reason, at),
    attempt: (a) => attempt.run(encodeAttempt(a)),
    approval: (eventId, runId, at) => approval.run(eventId, runId, at)
  }
}

// Validation is off when building rows (the constructor's check costs ~150 µs a Run); the store decodes them back.
const runOf = (s: Submission, state: RunState, version: number, at: number, updatedAt: number) =>
  new Run({
    id: runIdOf(s.eventId),
    eventId: s.eventId,
    loop: s.loop,
    itemKey: s.itemKey,
    repository: s.repository,
    ...(s.number === undefined ? {} : { number: s.number }),
    generation: s.generation,
    state,
    version,
    task: s.task,
    agent: s.agent,
    approvalRequired: s.approvalRequired,
    receivedAt: s.receivedAt,
    createdAt: at,
    updatedAt
  }, true)

/** Every row recordAndClaim, beginAttempt and finishAttempt leave for an Event whose Run succeeded or failed. */
const writeClosed = (w: Statements, s: Submission, state: "Succeeded" | "Failed") => {
  const t = s.receivedAt
  const run = runOf(s, state === "Succeeded" ? new Succeeded() : new Failed(), 3, t + 5, t + 60_000)
  const failure = new AgentFailure({ reason: "tests kept failing", evidence: "3 of 120 tests failed in verify" })
  w.event(s, t + 5)
  w.run(run)
  w.transition(run.id, null, "Pending", "trigger", `opened for Event ${s.eventId}`, t + 5)
  w.transition(run.id, "Pending", "Running", "engine", "first Attempt started", t + 10)
  w.transition(run.id, "Running", state, "engine", state === "Succeeded" ? "Attempt 1 succeeded" : `Attempt 1: ${failure.message}`, t + 60_000)
  w.attempt(new Attempt({
    id: attemptIdOf(run.id, 1),
    runId: run.id,
    step: "main",
    number: 1,
    startedAt: t + 10,
    endedAt: t + 60_000,
    outcome: state === "Succeeded"
      ? new AttemptSucceeded({
        result: { commits: ["4b825dc642cb6eb9a060e54bf8d69288fbee4904"], branch: `usine/${run.id}`, summary: "done" }
      })
      : new AttemptFailed({ failure }),
    worker: "w1",
    session: `memory:${run.id}`
  }, true))
}

/** The rows of a Run left Waiting, Queued (approved) or Running with its first Attempt open. */
const writeOpen = (w: Statements, s: Submission, state: "Waiting" | "Queued" | "Running") => {
  const t = s.receivedAt
  const version = state === "Queued" ? 3 : 2
  const run = runOf(s, state === "Waiting" ? new Waiting() : state === "Queued" ? new Queued() : new Running(), version, t + 5, t + 20)
  w.event(s, t + 5)
  w.run(run)
  w.transition(run.id, null, "Pending", "trigger", `opened for Event ${s.eventId}`, t + 5)
  if (state === "Running") {
    w.transition(run.id, "Pending", "Running", "engine", "first Attempt started", t + 10)
    w.attempt(new Attempt({ id: attemptIdOf(run.id, 1), runId: run.id, step: "main", number: 1, startedAt: t + 10, worker: "w1", session: `memory:${run.id}` }, true))
    return
  }
  w.transition(run.id, "Pending", "Waiting", "engine", "approval required", t + 10)
  if (state === "Queued") {
    w.approval(approvalEventIdOf(run.id), run.id, t + 20)
    w.transition(run.id, "Waiting", "Queued", "operator", "approved", t + 20)
  }
}

/**
 * A ledger file with `events` closed Runs (Event, Run, three transitions, one Attempt each; `closedStateOf`) and the open Runs of
 * `open`: migrations through `Sql.layerUnlocked`, then rows built with the store's own encoders and inserted by
 * better-sqlite3 in one transaction, with the secondary indexes dropped during the load and recreated after.
 */
export const seedLedger = (file: string, events: number, open: OpenMix = { waiting: 0, queued: 0, running: 0 }) =>
  Effect.gen(function*() {
    const started = performance.now()
    yield* Effect.scoped(Layer.build(Sql.layerUnlocked(file)))
    return yield* Effect.sync((): Seeded => {
      const db = openForBulkLoad(file)
      const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        .all() as ReadonlyArray<{ name: string; sql: string }>
      for (const index of indexes) db.exec(`DROP INDEX ${index.name}`)
      const w = statements(db)
      let rows = 0
      db.transaction(() => {
        for (let i = 0; i < events; i++) {
          writeClosed(w, pairSubmission(i >> 1, i & 1, SEED_EPOCH + i * 1000), closedStateOf(i))
          rows += 6
          if (i > 0 && i % 200_000 === 0) process.stderr.write(`  seeded ${i} Events\n`)
        }
        const kinds = [
          ...Array<"Waiting">(open.waiting).fill("Waiting"),
          ...Array<"Queued">(open.queued).fill("Queued"),
          ...Array<"Running">(open.running).fill("Running")
        ]
        kinds.forEach((state, k) => {
          const loop = state === "Running" ? "build" : "gated"
          const s = pairSubmission(openPair(events, k), 0, SEED_EPOCH + (events + k) * 1000, {
            loop,
            approvalRequired: loop === "gated"
          })
          writeOpen(w, s, state)
          rows += state === "Waiting" ? 4 : state === "Queued" ? 6 : 5
        })
      })()
      for (const index of indexes) db.exec(index.sql)
      db.pragma("journal_mode = WAL")
      db.close()
      return { events, open, rows, ms: performance.now() - started, bytes: statSync(file).size }
    })
  })
