import { Effect, Layer, Redacted } from "effect"
import { runIdOf } from "@usine/core/ids/RunId"
import { migrateLedger } from "@usine/store/migrateLedger"
import * as PgSql from "@usine/store/PgSql"
import * as Sql from "@usine/store/Sql"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { psql, startPgCluster } from "@usine/testkit/PgCluster"
import { runLedgerOf } from "@usine/testkit/runLedger"
import { type BenchTarget, emitReport } from "./BenchReport"
import { boardWorld } from "./board/boardWorld"
import { latency } from "./board/latency"
import { itemPayload } from "./itemPayload"
import { itemSubmission } from "./itemSubmission"
import { seededLedger } from "./seededLedger"
import { pairOf, pairSubmission, SEED_EPOCH } from "./seedLedger"
import { sizesFromArgs } from "./sizesFromArgs"

/** New claims timed per engine (content version 2 of seeded pairs, each opening a Run), after WARM ones. */
const CLAIMS = 1_000
const WARM = 200

/** Claims per second through the store on `ledger`, on the seeded pairs from `first` on. */
const claimRate = <R, E>(ledger: Layer.Layer<R, E>, first: number) =>
  Effect.scoped(Effect.gen(function*() {
    const store = runLedgerOf(yield* Layer.build(SqlRunStore.layer.pipe(Layer.provideMerge(ledger))))
    const claim = (pair: number, k: number) => {
      const { loop, number, repository } = pairOf(pair)
      return store.recordAndClaim(itemSubmission({ loop, repository, number, payload: itemPayload(repository, number, 2), receivedAt: Date.now() + k }))
    }
    for (let k = 0; k < WARM; k++) yield* claim(first + k, k)
    const started = performance.now()
    let opened = 0
    for (let k = 0; k < CLAIMS; k++) {
      const result = yield* claim(first + WARM + k, k)
      if (result._tag === "Claimed" && result.opened) opened++
    }
    const ms = performance.now() - started
    if (opened !== CLAIMS) return yield* Effect.dieMessage(`only ${opened} of ${CLAIMS} claims opened a Run`)
    return Math.round((CLAIMS * 1000) / ms)
  }))

/** The Board's Runs list, a Run page and Needs you, as JSON, on `ledger`. */
const boardLatency = <R, E>(ledger: Layer.Layer<R, E>, events: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { server } = yield* boardWorld(ledger)
    const runs = runPages(events)
    return {
      runs: yield* latency(server.origin, ["/api/runs"], true),
      failed: yield* latency(server.origin, ["/api/runs?state=Failed"], true),
      run: yield* latency(server.origin, runs, true),
      needsYou: yield* latency(server.origin, ["/api/needs-you"], true)
    }
  }))

/** Run pages spread over the seeded ledger. */
const runPages = (events: number) =>
  Array.from({ length: 20 }, (_, k) => {
    const i = Math.floor((k * (events - 4)) / 20)
    return `/api/runs/${runIdOf(pairSubmission(i >> 1, i & 1, SEED_EPOCH + i * 1000).eventId)}`
  })

/** What the pages answer on `ledger`'s read-only Board (no engine: nothing changes the ledger meanwhile). */
const shownPages = <R, E>(ledger: Layer.Layer<R, E>, events: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { server } = yield* boardWorld(ledger, { engine: false })
    return yield* Effect.promise(() =>
      boardAnswers(server.origin, ["/api/runs", "/api/runs?state=Failed", "/api/needs-you", "/api/board", "/api/loops", "/api/usage", ...runPages(events)])
    )
  }))

/** What each page answers, for the two engines' Boards to be compared (the issue's "the same Runs"). */
const boardAnswers = async (origin: string, paths: ReadonlyArray<string>) => {
  const answers = new Map<string, string>()
  for (const path of paths) {
    const response = await fetch(`${origin}${path}`, { headers: { accept: "application/json" } })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`)
    answers.set(path, text)
  }
  return answers
}

/** Dies naming the first page whose answer differs between the engines: the copy must show the same Board. */
const sameBoard = (sqlite: ReadonlyMap<string, string>, postgres: ReadonlyMap<string, string>) =>
  Effect.gen(function*() {
    for (const [path, answer] of sqlite) {
      if (postgres.get(path) !== answer) {
        return yield* Effect.dieMessage(`the Board on PostgreSQL answers ${path} otherwise than on SQLite:\n${answer.slice(0, 400)}\n${(postgres.get(path) ?? "").slice(0, 400)}`)
      }
    }
    return sqlite.size
  })

const measure = (events: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { file } = yield* seededLedger(events)
    const cluster = yield* startPgCluster
    yield* psql(cluster, "CREATE DATABASE usine_bench")
    const url = Redacted.make(cluster.url("usine_bench"))
    const started = performance.now()
    const copied = yield* migrateLedger({ from: file, to: { url }, verify: false, onCopied: () => Effect.void })
    const migrateS = (performance.now() - started) / 1000
    const rows = copied.reduce((sum, table) => sum + table.rows, 0)
    const sqlite = Sql.layer(file)
    const postgres = PgSql.layer({ url })
    const samePages = yield* sameBoard(yield* shownPages(sqlite, events), yield* shownPages(postgres, events))
    const board = { sqlite: yield* boardLatency(sqlite, events), postgres: yield* boardLatency(postgres, events) }
    process.stderr.write(`postgres: the Board answers the same ${samePages} pages on both engines\n`)
    // Claims last: they change each ledger (on pairs of their own, the same on both).
    const first = Math.floor(events / 4)
    const claims = { sqlite: yield* claimRate(sqlite, first), postgres: yield* claimRate(postgres, first) }
    return { events, rows, tables: copied.length, migrateS, board, claims, samePages }
  }))

const program = Effect.gen(function*() {
  const results = []
  for (const events of sizesFromArgs([100_000])) {
    process.stderr.write(`postgres: ${events} Runs\n`)
    results.push(yield* measure(events))
  }
  const largest = results.at(-1)!
  const pages = ["runs", "failed", "run", "needsYou"] as const
  const names = { runs: "Runs (JSON)", failed: "Runs, state Failed (JSON)", run: "Run (JSON)", needsYou: "Needs you (JSON)" }
  const targets: Array<BenchTarget> = pages.map((page) => ({
    name: `${names[page]} on PostgreSQL at ${largest.events.toLocaleString("en-US")} Runs`,
    target: "median < 100 ms",
    measured: `${largest.board.postgres[page].median.toFixed(1)} ms (SQLite ${largest.board.sqlite[page].median.toFixed(1)})`,
    met: largest.board.postgres[page].median < 100
  }))
  emitReport({
    bench: "postgres",
    tables: [{
      title: "usine ledger migrate: a seeded SQLite ledger copied into PostgreSQL and verified (one transaction)",
      columns: ["Runs", "tables", "rows", "seconds", "rows/s"],
      rows: results.map((r) => [r.events, r.tables, r.rows, r.migrateS, Math.round(r.rows / r.migrateS)])
    }, {
      title: `Claims through the store, ${CLAIMS} new content versions each opening a Run, one at a time`,
      columns: ["Runs", "SQLite claims/s", "PostgreSQL claims/s"],
      rows: results.map((r) => [r.events, r.claims.sqlite, r.claims.postgres])
    }, {
      title: "Board latency after the copy, the same Runs on each engine (100 sequential GETs after 5 warm-up)",
      columns: ["Runs", "page", "SQLite median ms", "SQLite p99 ms", "PostgreSQL median ms", "PostgreSQL p99 ms"],
      rows: results.flatMap((r) => pages.map((page) => [r.events, names[page], r.board.sqlite[page].median, r.board.sqlite[page].p99, r.board.postgres[page].median, r.board.postgres[page].p99]))
    }],
    targets,
    notes: [
      "PostgreSQL 15 on 127.0.0.1 in a throwaway cluster (fsync off, as the tests run it); the daemon's one SQLite file against four pooled connections",
      "each PostgreSQL claim takes the ledger's write lock first (ADR 0106); every write statement takes the leadership row FOR KEY SHARE (ADR 0109)"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
