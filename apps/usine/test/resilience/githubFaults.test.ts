import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { REPOSITORY } from "../support/daemonConfig"
import { scopedDir } from "../support/scopedSim"
import { checkLedger, checkNoLostEvent } from "./support/checkInvariants"
import { checkWaitWindows, type WaitWindow } from "./support/checkWaitWindows"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { queryLedger, readLedger } from "./support/LedgerSnapshot"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { BOT, scopedWorld } from "./support/ResilienceWorld"
import { startDaemon } from "./support/startDaemon"
import { waitFor } from "./support/waitUntil"

const LABEL = "go"
const ISSUES = "/repos/*/*/issues"
const PULLS = "/repos/*/*/pulls"

describe("resilience: GitHub faults through the emulator", () => {
  it.scopedLive("5xx, truncated pages, hangs, 429 and 403 with Retry-After, a spent quota: nothing lost, no request inside a wait", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const { control } = world
      const ledgerFile = join(dir, "state", "ledger.db")
      yield* writeResilienceConfig(dir, world, {
        agents: { quick: agent("ok", { arg: 200 }) },
        workers: { local: { root: join(dir, "workspaces"), slots: 3 } },
        loops: [{ name: "gh", label: LABEL, agent: "quick", maxAttemptMinutes: 3 }]
      })
      const table = new FaultTable("GitHub faults")
      const fault = (label: string, spec: Parameters<typeof control.setFault>[0]) =>
        world.call(() => control.setFault(spec)).pipe(Effect.tap(() => table.inject(label)))
      const matching = new Map<number, ReadonlyArray<string>>()
      const open = (title: string, labeled: boolean) =>
        world.call(() => control.createIssue({ repo: REPOSITORY, title, ...(labeled ? { labels: [LABEL] } : {}) })).pipe(
          Effect.tap((issue) => Effect.sync(() => labeled && matching.set(issue.number, ["gh"]))),
          Effect.map((issue) => issue.number)
        )
      const runOf = (number: number) => readLedger(ledgerFile).runs.find((r) => r.number === number)
      const succeeded = (numbers: ReadonlyArray<number>) => () => numbers.every((n) => runOf(n)?.state === "Succeeded")

      // 120 issues no Loop wants, then 8 it does: the 8 are on the second page of the change listing (oldest first).
      for (let i = 0; i < 120; i++) yield* open(`filler ${i}`, false)
      const first: Array<number> = []
      for (let i = 0; i < 8; i++) first.push(yield* open(`wanted ${i}`, true))
      // A fault with no effect consumes one request: the listing's first page passes, its second is cut short.
      yield* world.call(() => control.setFault({ method: "GET", path: ISSUES, times: 1 }))
      yield* fault("change listing: page 2 cut short", { method: "GET", path: ISSUES, truncate: true, times: 1 })
      yield* fault("change listing: 502 twice", { method: "GET", path: ISSUES, status: 502, times: 2 })
      yield* fault("GraphQL: answer cut short", { method: "POST", path: "/graphql", truncate: true, times: 1 })
      yield* fault("GraphQL: 500 twice", { method: "POST", path: "/graphql", status: 500, times: 2 })
      yield* fault("pull request creation hangs (client timeout)", { method: "POST", path: PULLS, hang: true, times: 1 })

      const daemon = yield* startDaemon(dir)
      // The first harvest hangs; once another Run got through, the listing hangs too, so the two timeouts overlap.
      yield* waitFor(() => first.some((n) => runOf(n)?.state === "Succeeded"), "60 seconds", "250 millis")
      yield* fault("change listing hangs (client timeout)", { method: "GET", path: ISSUES, hang: true, times: 1 })
      const hangStarted = yield* Clock.currentTimeMillis
      const duringHang = yield* open("opened while polling hangs", true)
      yield* waitFor(succeeded([...first, duringHang]), "120 seconds", "250 millis")
      const afterHangs = readLedger(ledgerFile)
      // Faults apply in the order installed: the 5xx answers in the log prove the cut pages before them were served.
      const early = yield* world.botRequests
      const answered = (method: string, path: RegExp, status: number) => early.filter((r) => r.method === method && path.test(r.path) && r.status === status).length
      table.assert("every 5xx and cut-short fault was served", answered("GET", /^\/repos\/acme\/widgets\/issues\?/, 502) === 2 && answered("POST", /^\/graphql$/, 500) === 2, "a fault was never reached")
      const heldMs = Number(queryLedger(ledgerFile, "SELECT min(received_at) AS at FROM usine_events WHERE number = ?", duringHang)[0]?.["at"] ?? 0) - hangStarted
      table.assert("the hanging listing held polling until the client's timeout, then polling resumed", heldMs >= 20_000, `the Item's Event came ${heldMs} ms after the hang began`)
      const issues = yield* world.issues
      const unseen = issues.filter((i) => !afterHangs.projections.some((p) => p.number === i.number))
      table.assert("the cursor never skips an Item", unseen.length === 0, `never observed: #${unseen.map((i) => i.number).join(", #")}`, issues.length)
      table.record(checkNoLostEvent(afterHangs, REPOSITORY, matching), "after 5xx, truncation and hangs")
      // The hung pull request call times out and the harvest is retried in place (ADR 0047): the agent runs once.
      const failedAttempts = afterHangs.attempts.filter((a) => a.outcome?._tag === "Failed")
      const rerun = afterHangs.runs.filter((r) => r.number !== null && first.includes(r.number) && afterHangs.attempts.filter((a) => a.runId === r.id).length !== 1)
      table.assert("a hung pull request call is retried in place: no Attempt fails, each Run has one Attempt", failedAttempts.length === 0 && rerun.length === 0, JSON.stringify({ failed: failedAttempts.map((a) => a.outcome), rerun: rerun.map((r) => r.number) }))

      const windows: Array<WaitWindow> = []
      const logLength = Effect.map(world.call(() => control.requestLog()), (log) => log.length)
      windows.push({ label: "429 Retry-After 4 on the change listing", installedAt: yield* logLength, limited: (r) => r.status === 429, until: (at) => at + 4_000 })
      yield* fault("429 with Retry-After: 4 on the change listing", { method: "GET", path: ISSUES, status: 429, retryAfter: 4, rateLimit: "primary", times: 1 })
      windows.push({ label: "secondary limit on pull request creation", installedAt: yield* logLength, limited: (r) => r.status === 403 && r.method === "POST", until: (at) => at + 3_000 })
      yield* fault("403 secondary rate limit, Retry-After: 3, on pull request creation", { method: "POST", path: PULLS, status: 403, retryAfter: 3, times: 1 })
      const limited = yield* open("opened under rate limits", true)
      yield* waitFor(succeeded([limited]), "60 seconds", "250 millis")

      const resetAt = (yield* Clock.currentTimeMillis) + 5_000
      windows.push({ label: "quota spent until its reset", installedAt: yield* logLength, limited: (r) => r.status === 403, until: () => Math.ceil(resetAt / 1000) * 1000 })
      yield* world.call(() => control.setRateLimit({ login: "usine-bot", remaining: 0, resetAt: new Date(resetAt).toISOString() }))
      table.inject("core quota spent (403, x-ratelimit-remaining: 0) for 5 s")
      const spent = yield* open("opened with the quota spent", true)
      yield* waitFor(succeeded([spent]), "60 seconds", "250 millis")

      const ledger = readLedger(ledgerFile)
      table.record(checkWaitWindows(yield* world.call(() => control.requestLog()), BOT, windows))
      table.record(checkNoLostEvent(ledger, REPOSITORY, matching), "at the end")
      table.assert("every wanted Item's Run succeeded", [...matching.keys()].every((n) => runOf(n)?.state === "Succeeded"), "a Run did not succeed", matching.size)
      const pulls = yield* world.pulls
      for (const result of checkLedger(ledger, pulls)) table.record(result)
      table.assert("one pull request per wanted Item", pulls.length === matching.size, `${pulls.length} pull requests for ${matching.size} Items`, pulls.length)
      yield* drainDaemon(daemon, dir, table, { label: "SIGTERM once idle" })
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), 300_000)
})
