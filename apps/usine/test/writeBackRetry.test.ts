import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, Redacted, TestClock } from "effect"
import { AttemptSucceeded } from "@usine/core/attempt/outcome"
import { parseConfig } from "@usine/core/config/parseConfig"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { GitHubClient } from "@usine/github/GitHubClient"
import { WriteBackOutbox } from "@usine/store/WriteBackOutbox"
import type { Hint } from "@usine/triggers/Hints"
import { ConfigState } from "../src/ConfigState"
import { retryAtAfter, WRITE_BACK_MAX_TRIES, writeBackBackoffMs, writeBackLoop } from "../src/daemon/writeBack"
import { LedgerLayer } from "../src/layers/LedgerLayer"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { runLedger } from "@usine/testkit/runLedger"

const REPOSITORY = "acme/widgets"

const config = Effect.runSync(parseConfig(`repositories: [${REPOSITORY}]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix {{ item.title }}"
    agent: codex
    approval: none
    status_labels:
      running: {add: [agent-working], remove: []}
      succeeded: {add: [ready-for-review], remove: []}
`, { env: {} }))

/** Real time, while the loop's own sleeps follow the TestClock. */
const realPause = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/** Checks `read` every 20 ms of real time until it holds, for at most 20 s. */
const until = <A>(what: string, read: Effect.Effect<A>, holds: (a: A) => boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1000; i++) {
      const value = yield* read
      if (holds(value)) return value
      yield* realPause(20)
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })

describe("write-back retries", () => {
  it("waits 2 s doubling after each failed try and gives up after the last", () => {
    const waits = Array.from({ length: WRITE_BACK_MAX_TRIES }, (_, i) => retryAtAfter(i + 1, 1_000))
    assert.deepStrictEqual(waits, [3_000, 5_000, 9_000, 17_000, 33_000, 65_000, 129_000, undefined])
    assert.strictEqual(retryAtAfter(WRITE_BACK_MAX_TRIES + 3, 0), undefined)
  })

  it.scoped("the loop tries a refused write on the backoff's schedule, gives it up after the eighth try, and the Run's next write goes on", () =>
    Effect.gen(function* () {
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim)
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "", labels: ["ready-for-agent"] }))
      const labelsPath = `/repos/${REPOSITORY}/issues/${issue.number}/labels`
      // Refused exactly as many times as the loop may try: a ninth try would succeed and read as recovered.
      yield* Effect.promise(() => sim.control.setFault({ method: "POST", path: labelsPath, status: 422, times: WRITE_BACK_MAX_TRIES }))
      const dir = yield* scopedDir
      const services = yield* Layer.build(Layer.mergeAll(
        LedgerLayer({ _tag: "sqlite", file: join(dir, "ledger.sqlite") }),
        ConfigState.layer(config),
        GitHubClient.Default({ token: Redacted.make(token), apiUrl: sim.url, retries: 0 })
      ))
      const store = yield* Effect.provide(runLedger, services)
      const outbox = yield* Effect.provide(WriteBackOutbox, services)
      const rereads = yield* Ref.make<ReadonlyArray<Hint>>([])
      const loop = yield* writeBackLoop("usine-bot", (hint) => Ref.update(rereads, (all) => [...all, hint])).pipe(
        Effect.provide(services),
        Effect.fork
      )
      /** The loop sleeps between cycles: nothing of it runs until the clock moves. */
      const parked = until("the write-back loop to sleep", TestClock.sleeps(), (sleeps) => sleeps.length > 0)
      // The first cycle places the cursor over the transition log: what happens from here on is written back.
      yield* parked

      const eventId = itemEventIdOf({ loop: "fix", repository: REPOSITORY, number: issue.number, contentHash: "h1", generation: 0 })
      const claim = yield* store.recordAndClaim({
        eventId, loop: "fix", itemKey: itemKeyOf(REPOSITORY, issue.number), repository: REPOSITORY, number: issue.number,
        generation: 0, contentHash: "h1", task: "Fix it", agent: "codex", approvalRequired: false, maxCycles: 3, receivedAt: 0
      })
      assert.strictEqual(claim._tag, "Claimed")
      const runId = claim._tag === "Claimed" ? claim.run.id : assert.fail("claimed")
      const begun = yield* store.beginAttempt(runId, { live: () => true })
      assert.strictEqual(begun._tag, "Started")
      if (begun._tag !== "Started") return
      yield* store.finishAttempt(begun.attempt.id, new AttemptSucceeded({ result: { commits: ["abc"] } }))

      const troubles = outbox.troubles(runId)
      const triesSoFar = Effect.map(troubles, (list) => list[0]?.tries ?? 0)
      yield* TestClock.adjust("1 second")
      for (let tries = 1; tries <= WRITE_BACK_MAX_TRIES; tries++) {
        yield* until(`try ${tries}`, triesSoFar, (n) => n === tries)
        yield* parked
        if (tries === WRITE_BACK_MAX_TRIES) break
        // One second short of the backoff, the write waits; at the backoff, it is tried again.
        yield* TestClock.adjust(writeBackBackoffMs(tries - 1) - 1000)
        yield* parked
        yield* realPause(150)
        assert.strictEqual(yield* triesSoFar, tries, `try ${tries + 1} waits ${writeBackBackoffMs(tries - 1)} ms`)
        yield* TestClock.adjust("1 second")
      }
      const [running] = yield* troubles
      assert.deepInclude(running, { phase: "running", tries: WRITE_BACK_MAX_TRIES, status: "gave-up" })
      assert.match(running?.lastError ?? "", /issues\/\{issue_number\}\/labels failed with 422/)
      assert.deepStrictEqual(yield* Ref.get(rereads), [], "a write that never landed asks for no re-read")

      // Given up, the Run's succeeded write-back is next: it lands, and the Item is read again.
      yield* TestClock.adjust("1 second")
      yield* until("the succeeded write-back", Ref.get(rereads), (all) => all.length === 1)
      assert.deepStrictEqual(yield* Ref.get(rereads), [{ repository: REPOSITORY, number: issue.number }])
      const labels = yield* Effect.promise(() =>
        fetch(`${sim.url}${labelsPath}`, { headers: { authorization: `token ${token}` } }).then((r) => r.json() as Promise<ReadonlyArray<{ name: string }>>))
      assert.deepStrictEqual(labels.map((l) => l.name).sort(), ["ready-for-agent", "ready-for-review"], "the running label never went on")
      const posts = (yield* Effect.promise(() => sim.control.requestLog())).filter((r) => r.method === "POST" && r.path === labelsPath)
      assert.strictEqual(posts.length, WRITE_BACK_MAX_TRIES + 1, "eight tries of the running labels, one of the succeeded ones")
      yield* Fiber.interrupt(loop)
    }), 60_000)
})
