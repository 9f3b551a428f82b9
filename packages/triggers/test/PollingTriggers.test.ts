import { assert, describe, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Either, Layer, Queue, TestClock } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { PollFailures } from "@usine/triggers/PollFailures"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"
import { settingsOf } from "./support/settingsOf"
import { clearRequestLog, REPOSITORY, requestLines, SimGitHub } from "./support/SimGitHub"
import { Submitted, TestLedger } from "./support/TestLedger"

const LOOPS = `repositories: [acme/widgets, acme/gadgets]
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on {{ item.title }}"
    agent: codex
`

const world = Layer.mergeAll(PollingTriggers.Default, PollFailures.Default).pipe(
  Layer.provideMerge(
    Layer.mergeAll(TestLedger, SimGitHub, TriggerConfig.fixed(settingsOf(LOOPS, Duration.seconds(30))))
  )
)

/**
 * Lets the forked loop run until it has finished `cycles` cycles and sleeps toward its next poll. The HTTP in between
 * runs on real sockets; request timeouts are TestClock sleeps too, so the loop's own sleep is recognised by its
 * deadline.
 */
const asleepAfter = (cycles: number) =>
  Effect.gen(function* () {
    const triggers = yield* PollingTriggers
    for (let i = 0; i < 10_000; i++) {
      const status = yield* triggers.status
      const sleeps = yield* TestClock.sleeps()
      if (status.cycles >= cycles && Chunk.some(sleeps, (deadline) => deadline === status.nextPollAt)) return status
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
    }
    throw new Error("the polling loop never went back to sleep")
  })

const settle = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))

describe("PollingTriggers", () => {
  it.scoped("a 403 with Retry-After delays the next poll past poll_interval, and no request is sent meanwhile", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      const triggers = yield* PollingTriggers
      yield* sim.control.createRepository({ owner: "acme", name: "gadgets" })
      yield* sim.control.createIssue({ repo: REPOSITORY, title: "Fix it", labels: ["ready-for-agent"] })
      yield* sim.control.setFault({ method: "GET", path: "/repos/acme/widgets/issues", status: 403, retryAfter: 120, times: 1 })
      const cycles = yield* triggers.cycles
      yield* Effect.forkScoped(triggers.run)
      const first = yield* Queue.take(cycles)
      const widgets = first.repositories.find((r) => r.repository === REPOSITORY)!
      assert.isTrue(Either.isLeft(widgets.result))
      assert.deepStrictEqual((yield* Effect.flatMap(PollFailures, (f) => f.recent)).map((f) => f.repository), [REPOSITORY], "on Needs you")
      assert.include(Either.getLeft(widgets.result).pipe((l) => (l._tag === "Some" ? l.value : "")), "rate limit")
      assert.strictEqual((yield* asleepAfter(1)).nextPollAt, 120_000, "Retry-After, not the 30 s poll_interval")
      yield* clearRequestLog
      yield* TestClock.adjust("119 seconds")
      assert.strictEqual((yield* asleepAfter(1)).cycles, 1)
      assert.strictEqual(yield* Queue.size(cycles), 0)
      assert.deepStrictEqual(yield* requestLines, [])
      yield* TestClock.adjust("1 second")
      const second = yield* Queue.take(cycles)
      assert.isTrue(second.repositories.every((r) => Either.isRight(r.result)))
      assert.strictEqual((yield* Effect.flatMap(Submitted, (s) => s.get)).length, 1)
      assert.strictEqual((yield* asleepAfter(2)).nextPollAt, 150_000, "back to poll_interval")
      const failures = yield* Effect.flatMap(PollFailures, (f) => f.recent)
      assert.deepStrictEqual(failures, [], "a poll that went well clears its repository's failure from Needs you")
    }).pipe(Effect.provide(world))
  )

  it.scoped("a Hint refreshes its Item between cycles without touching the cursor", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      const triggers = yield* PollingTriggers
      yield* sim.control.createRepository({ owner: "acme", name: "gadgets" })
      yield* sim.control.createIssue({ repo: REPOSITORY, title: "Fix it" })
      yield* Effect.forkScoped(triggers.run)
      yield* asleepAfter(1)
      yield* sim.control.addLabels({ repo: REPOSITORY, number: 1, labels: ["ready-for-agent"] })
      yield* clearRequestLog
      assert.strictEqual(yield* triggers.hint({ repository: REPOSITORY, number: 1 }), "Queued")
      for (let i = 0; i < 10_000 && (yield* Effect.flatMap(Submitted, (s) => s.get)).length === 0; i++) {
        yield* settle
      }
      assert.strictEqual((yield* Effect.flatMap(Submitted, (s) => s.get)).length, 1)
      // No listing: the cursor is not involved. The author's permission and the label's events are trigger trust.
      assert.deepStrictEqual(yield* requestLines, [
        "POST /graphql 200",
        "GET /repos/acme/widgets/collaborators/acme/permission 200",
        "GET /repos/acme/widgets/issues/1/events 200"
      ])
    }).pipe(Effect.provide(world))
  )
})
