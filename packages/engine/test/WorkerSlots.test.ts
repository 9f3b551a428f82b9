import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Layer } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { AttemptPolicy } from "@usine/engine/Executor"
import { type LoopPolicy, LoopPolicies } from "@usine/engine/LoopPolicies"
import { WorkerSlots } from "@usine/engine/WorkerSlots"
import { settle, until } from "./support/settle"

const attempt: AttemptPolicy = {
  verify: [],
  verifyRounds: 0,
  forbiddenPaths: [],
  maxChangedFiles: undefined,
  maxAttemptMinutes: undefined,
  stallMinutes: undefined,
  kind: "issues"
}
const loop = (workers?: ReadonlyArray<string>): LoopPolicy => ({
  approvalRequired: false,
  maxAttemptMinutes: undefined,
  approvalTimeoutMinutes: undefined,
  attempt,
  workers
})

const Policies = LoopPolicies.layer({
  loops: { build: loop(), review: loop(["w2"]) },
  workers: [
    { name: "w1", maxConcurrentAttempts: 1, agents: ["codex"] },
    { name: "w2", maxConcurrentAttempts: 1, agents: ["codex", "claude"] }
  ]
})
const TestLayer = WorkerSlots.Default.pipe(Layer.provide(Policies))

const run = (id: string, loop: string, receivedAt: number, agent = "codex") => ({
  id: id as RunId,
  loop,
  agent,
  receivedAt
})

/** Reserves in the background; the slot is held until `release` is called. */
const hold = (r: ReturnType<typeof run>, granted: Array<string>, prefer?: string) =>
  Effect.gen(function*() {
    const slots = yield* WorkerSlots
    const released = yield* Deferred.make<void>()
    const fiber = yield* Effect.scoped(
      slots.reserve(r, prefer).pipe(
        Effect.tap((slot) => Effect.sync(() => granted.push(`${r.id}@${slot.worker}`))),
        Effect.zipRight(Deferred.await(released))
      )
    ).pipe(Effect.fork)
    yield* settle
    return { release: Deferred.succeed(released, undefined).pipe(Effect.zipRight(Fiber.join(fiber))), fiber }
  })

describe("WorkerSlots", () => {
  it.effect("serves slots in Event receipt order across Loops and Workers", () =>
    Effect.gen(function*() {
      const slots = yield* WorkerSlots
      const granted: Array<string> = []
      const first = yield* hold(run("r0", "build", 0), granted)
      const second = yield* hold(run("r1", "build", 1), granted)
      assert.deepStrictEqual(granted, ["r0@w1", "r1@w2"])
      // Submitted out of receipt order; claude runs only on w2, and review is restricted to w2.
      const late = yield* hold(run("late", "build", 30), granted)
      const review = yield* hold(run("review", "review", 10), granted)
      const mid = yield* hold(run("mid", "build", 20), granted)
      const claude = yield* hold(run("claude", "build", 5, "claude"), granted)
      assert.deepStrictEqual((yield* slots.usage).waiting, ["claude", "review", "mid", "late"])

      yield* first.release // w1 frees: claude and review cannot use it, mid is the earliest that can
      assert.deepStrictEqual(granted.slice(2), ["mid@w1"])
      yield* second.release // w2 frees: claude (5) before review (10) and late (30)
      assert.deepStrictEqual(granted.slice(3), ["claude@w2"])
      yield* claude.release // w2 again: review (10) before late (30), though late could use it too
      assert.deepStrictEqual(granted.slice(4), ["review@w2"])
      yield* mid.release
      assert.deepStrictEqual(granted.slice(5), ["late@w1"])
      yield* review.release
      yield* late.release
      assert.deepStrictEqual(yield* slots.usage, { inUse: { w1: 0, w2: 0 }, waiting: [] })
    }).pipe(Effect.provide(TestLayer)))

  it.effect("places a Run only on a Worker that has its Agent, within its Loop's Workers", () =>
    Effect.gen(function*() {
      const slots = yield* WorkerSlots
      const missing = yield* Effect.scoped(slots.reserve(run("x", "build", 0, "pi"))).pipe(Effect.either)
      assert.isTrue(Either.isLeft(missing))
      if (Either.isLeft(missing)) assert.strictEqual(missing.left.agent, "pi")
      const granted: Array<string> = []
      const a = yield* hold(run("a", "review", 0), granted)
      const b = yield* hold(run("b", "review", 1), granted)
      assert.deepStrictEqual(granted, ["a@w2"], "review may not use the free w1")
      yield* a.release
      assert.deepStrictEqual(granted, ["a@w2", "b@w2"])
      yield* b.release
    }).pipe(Effect.provide(TestLayer)))

  it.effect("an interrupted reservation leaves the queue and a granted one gives its slot back", () =>
    Effect.gen(function*() {
      const slots = yield* WorkerSlots
      const granted: Array<string> = []
      const w1 = yield* hold(run("a", "build", 0), granted, "w1")
      const w2 = yield* hold(run("b", "build", 1), granted, "w2")
      const waiter = yield* hold(run("c", "build", 2), granted)
      assert.deepStrictEqual((yield* slots.usage).waiting, ["c"])
      yield* Fiber.interrupt(waiter.fiber)
      assert.deepStrictEqual((yield* slots.usage).waiting, [])
      yield* Fiber.interrupt(w1.fiber)
      const next = yield* hold(run("d", "build", 3), granted)
      assert.deepStrictEqual(granted, ["a@w1", "b@w2", "d@w1"])
      yield* next.release
      yield* w2.release
      yield* until("all slots free", () =>
        slots.usage.pipe(Effect.map((u) => u.inUse.w1 === 0 && u.inUse.w2 === 0)))
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a reattach waits for the Worker its Attempt runs on", () =>
    Effect.gen(function*() {
      const granted: Array<string> = []
      const busy = yield* hold(run("a", "build", 0), granted, "w2")
      const reattach = yield* hold(run("b", "build", 1), granted, "w2")
      assert.deepStrictEqual(granted, ["a@w2"], "w1 is free, yet the reattach waits for w2")
      yield* busy.release
      assert.deepStrictEqual(granted, ["a@w2", "b@w2"])
      yield* reattach.release
    }).pipe(Effect.provide(TestLayer)))

  it.effect("a live session's reattach is granted at once, over the capacity; new work waits until usage is under it (ADR 0110)", () =>
    Effect.gen(function*() {
      const slots = yield* WorkerSlots
      const granted: Array<string> = []
      const busy = yield* hold(run("a", "build", 5), granted, "w2")
      // The reattach's Run was received earlier than nothing here and later than "a": it does not queue at all.
      const live = yield* slots.request(run("b", "build", 6), "w2", () => assert.fail("granted at once, never from the queue"), true)
      assert.strictEqual(live._tag, "Granted")
      assert.deepStrictEqual((yield* slots.usage).inUse.w2, 2)
      const fresh = yield* hold(run("c", "review", 7), granted)
      assert.deepStrictEqual(granted, ["a@w2"], "w2 is over its capacity: new work waits")
      yield* busy.release
      assert.deepStrictEqual(granted, ["a@w2"], "one slot in use on w2 still, its capacity")
      if (live._tag === "Granted") live.slot.release()
      yield* settle
      assert.deepStrictEqual(granted, ["a@w2", "c@w2"])
      yield* fresh.release
    }).pipe(Effect.provide(TestLayer)))

  describe("setWorkers (a reload, ADR 0052)", () => {
    const w = (name: string, maxConcurrentAttempts: number, agents: ReadonlyArray<string> = ["codex", "claude"]) => ({
      name,
      maxConcurrentAttempts,
      agents
    })

    /** Slots in use and the queue, with the Run ids as plain strings. */
    const usage = Effect.map(WorkerSlots, (slots) => slots.usage).pipe(
      Effect.flatten,
      Effect.map((u) => ({ inUse: u.inUse, waiting: u.waiting.map(String) }))
    )

    it.effect("a raised capacity grants the queued requests at once, in receipt order", () =>
      Effect.gen(function*() {
        const slots = yield* WorkerSlots
        yield* slots.setWorkers([w("w1", 1)])
        const granted: Array<string> = []
        const first = yield* hold(run("r0", "build", 0), granted)
        const later = yield* hold(run("r3", "build", 3), granted)
        const earlier = yield* hold(run("r1", "build", 1), granted)
        const middle = yield* hold(run("r2", "build", 2), granted)
        assert.deepStrictEqual(granted, ["r0@w1"])
        yield* slots.setWorkers([w("w1", 3)])
        yield* settle
        assert.deepStrictEqual(granted, ["r0@w1", "r1@w1", "r2@w1"])
        assert.deepStrictEqual(yield* usage, { inUse: { w1: 3 }, waiting: ["r3"] })
        yield* first.release
        assert.deepStrictEqual(granted.slice(3), ["r3@w1"])
        for (const held of [later, earlier, middle]) yield* held.release
      }).pipe(Effect.provide(TestLayer)))

    it.effect("a lowered capacity lets running slots finish and grants none until usage is under it", () =>
      Effect.gen(function*() {
        const slots = yield* WorkerSlots
        yield* slots.setWorkers([w("w1", 3)])
        const granted: Array<string> = []
        const a = yield* hold(run("a", "build", 0), granted)
        const b = yield* hold(run("b", "build", 1), granted)
        const c = yield* hold(run("c", "build", 2), granted)
        yield* slots.setWorkers([w("w1", 1)])
        const d = yield* hold(run("d", "build", 3), granted)
        assert.deepStrictEqual(granted, ["a@w1", "b@w1", "c@w1"], "the running slots stay")
        yield* a.release
        yield* b.release
        assert.deepStrictEqual(granted, ["a@w1", "b@w1", "c@w1"], "2 then 1 in use: not under the new capacity of 1")
        yield* c.release
        assert.deepStrictEqual(granted.slice(3), ["d@w1"])
        yield* d.release
        assert.deepStrictEqual(yield* usage, { inUse: { w1: 0 }, waiting: [] })
      }).pipe(Effect.provide(TestLayer)))

    it.effect("a removed Worker grants nothing new; the slot held on it is released when its Attempt ends", () =>
      Effect.gen(function*() {
        const slots = yield* WorkerSlots
        const granted: Array<string> = []
        const onW1 = yield* hold(run("a", "build", 0), granted, "w1")
        const onW2 = yield* hold(run("b", "build", 1), granted, "w2")
        yield* slots.setWorkers([w("w2", 1)])
        const queued = yield* hold(run("c", "build", 2), granted)
        assert.deepStrictEqual(granted, ["a@w1", "b@w2"])
        assert.deepStrictEqual(yield* usage, { inUse: { w1: 1, w2: 1 }, waiting: ["c"] })
        yield* onW1.release // the Attempt on the removed w1 ends: its slot goes, and c may not take w1
        assert.deepStrictEqual(granted, ["a@w1", "b@w2"])
        assert.deepStrictEqual(yield* usage, { inUse: { w2: 1 }, waiting: ["c"] })
        yield* onW2.release
        assert.deepStrictEqual(granted.slice(2), ["c@w2"])
        yield* queued.release
        const pinned = yield* hold(run("x", "build", 9), granted, "w1")
        assert.deepStrictEqual(granted.slice(3), ["x@w2"], "a request pinned to a removed Worker takes one in force")
        yield* pinned.release
      }).pipe(Effect.provide(TestLayer)))

    it.effect("a request waiting when a Worker is added is granted on it", () =>
      Effect.gen(function*() {
        const slots = yield* WorkerSlots
        const granted: Array<string> = []
        yield* slots.setWorkers([w("w1", 1)])
        const busy = yield* hold(run("a", "build", 0), granted)
        const queued = yield* hold(run("c", "build", 1, "claude"), granted)
        assert.deepStrictEqual((yield* slots.usage).waiting, ["c"])
        yield* slots.setWorkers([w("w1", 1), w("w3", 2)])
        yield* settle
        assert.deepStrictEqual(granted, ["a@w1", "c@w3"])
        yield* busy.release
        yield* queued.release
      }).pipe(Effect.provide(TestLayer)))
  })
})
