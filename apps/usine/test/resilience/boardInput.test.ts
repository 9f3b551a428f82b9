import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { BOARD_TOKEN, REPOSITORY } from "../support/daemonConfig"
import { scopedDir } from "../support/scopedSim"
import { type BoardCase, boardCases } from "./support/boardCases"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { readLedger } from "./support/LedgerSnapshot"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { startDaemon } from "./support/startDaemon"
import { waitFor } from "./support/waitUntil"

/** One request as a script sends it: the Board token, JSON in and out. */
const send = (base: string, c: BoardCase) =>
  Effect.promise(async () => {
    const response = await fetch(`${base.replace(/\/$/, "")}${c.path}`, {
      method: c.method,
      headers: { authorization: `Bearer ${BOARD_TOKEN}`, accept: "application/json", "content-type": "application/json" },
      ...(c.method === "POST" ? { body: c.raw ?? JSON.stringify(c.body ?? {}) } : {})
    })
    const text = await response.text()
    let body: { readonly field?: unknown; readonly error?: unknown; readonly message?: unknown } = {}
    try {
      body = JSON.parse(text)
    } catch {
      body = { message: text.slice(0, 200) }
    }
    return { status: response.status, body }
  })

/** What a refused request must leave as it was: every Run's state and version, every Event, every transition. */
const fingerprint = (ledgerFile: string) => {
  const ledger = readLedger(ledgerFile)
  return JSON.stringify([ledger.runs, ledger.events, ledger.transitions.length, ledger.attempts])
}

describe("resilience: bad input at the Board", () => {
  it.scopedLive("every endpoint with missing, extra and wrong fields answers 4xx naming the field, and changes nothing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const ledgerFile = join(dir, "state", "ledger.db")
      yield* writeResilienceConfig(dir, world, {
        agents: { quick: agent("ok", { arg: 50 }) },
        workers: { local: { root: join(dir, "workspaces"), slots: 1 } },
        loops: [{ name: "hostile", label: "go", agent: "quick" }]
      })
      const table = new FaultTable("bad input at the Board")
      const daemon = yield* startDaemon(dir)
      const issue = yield* world.call(() => world.control.createIssue({ repo: REPOSITORY, title: "one", labels: ["go"] }))
      yield* waitFor(() => readLedger(ledgerFile).runs.some((r) => r.number === issue.number && r.state === "Succeeded"), "60 seconds", "250 millis")
      const known = readLedger(ledgerFile).runs[0]?.id ?? ""
      const before = fingerprint(ledgerFile)

      const cases = boardCases(known)
      const wrong: Array<string> = []
      const unnamed: Array<string> = []
      const crashed: Array<string> = []
      for (const c of cases) {
        const { status, body } = yield* send(daemon.board, c)
        table.inject(c.status === 400 ? "Board request with a missing or wrong field" : "Board request with extra fields or an impossible action")
        if (status >= 500) crashed.push(`${c.name}: ${status} ${JSON.stringify(body)}`)
        if (status !== c.status) wrong.push(`${c.name}: expected ${c.status}, got ${status} ${JSON.stringify(body).slice(0, 200)}`)
        else if (c.field !== undefined && body.field !== c.field) unnamed.push(`${c.name}: names ${JSON.stringify(body.field)}, not ${c.field}`)
      }
      table.record({ invariant: "no bad request makes the Board fail (5xx)", checked: cases.length, violations: crashed })
      table.record({ invariant: "each bad request gets its expected status", checked: cases.length, violations: wrong })
      table.record({ invariant: "a 400 names the field at fault", checked: cases.filter((c) => c.field !== undefined).length, violations: unnamed })
      table.assert("refused requests change nothing in the ledger", fingerprint(ledgerFile) === before, "the ledger changed", cases.length)
      table.assert("the daemon still serves after the barrage", (yield* send(daemon.board, { name: "", method: "GET", path: "/api/needs-you", status: 200 })).status === 200, "no answer")

      yield* drainDaemon(daemon, dir, table, { label: "SIGTERM once idle" })
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), 120_000)
})
