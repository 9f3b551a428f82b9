import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Ref, TestClock } from "effect"
import { ScheduleTriggers } from "@usine/triggers/ScheduleTriggers"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"
import { settingsOf } from "./support/settingsOf"
import { Submitted, TestLedger } from "./support/TestLedger"
import { runLedger } from "@usine/testkit/runLedger"

const schedule = (cron: string, extra = "") =>
  settingsOf(`repositories: [acme/widgets, acme/gadgets]
loops:
  - name: nightly
    on: schedule
    cron: "${cron}"
    tz: Europe/Paris
    prompt: "Tick {{ item.tick.scheduledAtLocal }} ({{ item.tick.cron }}, {{ item.tick.tz }}) for {{ repository }}"
    agent: codex
${extra}`)

const world = (settings: ReturnType<typeof settingsOf>) =>
  ScheduleTriggers.Default.pipe(Layer.provideMerge(Layer.mergeAll(TestLedger, TriggerConfig.fixed(settings))))

const submitted = Effect.flatMap(Submitted, Ref.get)
const ticks = Effect.map(submitted, (list) => list.map((s) => `${s.repository} ${JSON.parse(s.eventId)[2]}`))

/** Lets the forked loop run until it sleeps again. */
const settled = Effect.gen(function* () {
  for (let i = 0; i < 1000; i++) {
    yield* Effect.yieldNow()
    if ((yield* TestClock.sleeps()).length > 0) return
  }
  throw new Error("the schedule loop never went back to sleep")
})

const at = (iso: string) => TestClock.setTime(Date.parse(iso))

describe("ScheduleTriggers", () => {
  it.scoped("fires each Tick once per selected repository across a DST change in Europe/Paris", () =>
    Effect.gen(function* () {
      yield* at("2026-03-28T07:00:00Z")
      const triggers = yield* ScheduleTriggers
      const loop = yield* Effect.forkScoped(triggers.run)
      yield* settled
      // The latest Tick at or before start fires once: yesterday 09:00 CET.
      assert.deepStrictEqual(yield* ticks, ["acme/widgets 2026-03-27T08:00:00.000Z", "acme/gadgets 2026-03-27T08:00:00.000Z"])
      yield* TestClock.adjust("59 minutes")
      yield* settled
      assert.strictEqual((yield* ticks).length, 2, "no Tick is due before 09:00 Paris")
      yield* TestClock.adjust("1 minute")
      yield* settled
      assert.strictEqual((yield* ticks).length, 4)
      // Overnight the loop would wake every 60 s; stop it and wake it shortly before the next Tick instead.
      yield* Fiber.interrupt(loop)
      yield* at("2026-03-29T06:58:00Z")
      yield* Effect.forkScoped(triggers.run)
      yield* settled
      assert.strictEqual((yield* ticks).length, 4, "yesterday's Tick already fired")
      yield* TestClock.adjust("2 minutes")
      yield* settled
      const list = yield* submitted
      assert.deepStrictEqual(list.slice(2).map((s) => s.task), [
        "Tick 2026-03-28T09:00:00+01:00 (0 9 * * *, Europe/Paris) for acme/widgets",
        "Tick 2026-03-28T09:00:00+01:00 (0 9 * * *, Europe/Paris) for acme/gadgets",
        "Tick 2026-03-29T09:00:00+02:00 (0 9 * * *, Europe/Paris) for acme/widgets",
        "Tick 2026-03-29T09:00:00+02:00 (0 9 * * *, Europe/Paris) for acme/gadgets"
      ])
      assert.deepStrictEqual((yield* ticks).slice(2), [
        "acme/widgets 2026-03-28T08:00:00.000Z",
        "acme/gadgets 2026-03-28T08:00:00.000Z",
        "acme/widgets 2026-03-29T07:00:00.000Z",
        "acme/gadgets 2026-03-29T07:00:00.000Z"
      ])
      assert.strictEqual(list[2]!.itemKey, '["github","acme/widgets"]')
      assert.isUndefined(list[2]!.maxCycles, "schedule Loops have no cycle budget")
    }).pipe(Effect.provide(world(schedule("0 9 * * *"))))
  )

  it.scoped("an hourly Tick through the autumn change keeps the repeated local hour apart by its UTC instant", () =>
    Effect.gen(function* () {
      yield* at("2026-10-24T23:00:00Z")
      const triggers = yield* ScheduleTriggers
      yield* Effect.forkScoped(triggers.run)
      yield* settled
      yield* TestClock.adjust("4 hours")
      yield* settled
      const local = (yield* submitted).filter((s) => s.repository === "acme/widgets").map((s) => s.task.split(" ")[1])
      assert.deepStrictEqual(local, [
        "2026-10-25T00:30:00+02:00",
        "2026-10-25T01:30:00+02:00",
        "2026-10-25T02:30:00+02:00",
        "2026-10-25T02:30:00+01:00",
        "2026-10-25T03:30:00+01:00"
      ])
    }).pipe(Effect.provide(world(schedule("30 * * * *"))))
  )

  it.effect("a time the spring change skips fires at the end of the gap", () =>
    Effect.gen(function* () {
      yield* at("2026-03-29T01:30:00Z")
      const fired = yield* Effect.flatMap(ScheduleTriggers, (t) => t.fireDue())
      assert.deepStrictEqual(fired.map((f) => f.scheduledAt), ["2026-03-29T01:00:00.000Z"])
      assert.include((yield* submitted)[0]!.task, "2026-03-29T03:00:00+02:00")
    }).pipe(Effect.provide(world(schedule("30 2 * * *"))))
  )

  it.effect("after a restart the latest missed Tick fires once, and the ledger discards the repeat", () =>
    Effect.gen(function* () {
      yield* at("2026-03-28T10:00:00Z")
      const fireDue = Effect.flatMap(ScheduleTriggers, (t) =>
        Effect.zip(t.fireDue(), t.fireDue())
      )
      const [before, again] = yield* fireDue.pipe(Effect.provide(ScheduleTriggers.Default))
      assert.strictEqual(before.length, 1)
      assert.deepStrictEqual(again, [], "a fired Tick does not fire again in the same process")
      const [restarted] = yield* fireDue.pipe(Effect.provide(ScheduleTriggers.Default))
      assert.strictEqual(restarted[0]!.scheduledAt, "2026-03-28T08:00:00.000Z")
      const claims = restarted[0]!.verdicts.map((v) => (v._tag === "Submitted" && v.claim._tag === "Claimed" ? v.claim.opened : v._tag))
      assert.deepStrictEqual(claims, [false, false], "same Event ids: the ledger keeps the Runs it had")
    }).pipe(Effect.provide(Layer.mergeAll(TestLedger, TriggerConfig.fixed(schedule("0 9 * * *")))))
  )

  it.effect("a paused Loop's Tick passes without an Event and is not fired late on unpause", () =>
    Effect.gen(function* () {
      const triggers = yield* ScheduleTriggers
      const runs = yield* runLedger
      yield* at("2026-03-28T08:30:00Z")
      yield* runs.setPaused("nightly", true)
      assert.deepStrictEqual(yield* triggers.fireDue(), [])
      yield* runs.setPaused("nightly", false)
      assert.deepStrictEqual(yield* triggers.fireDue(), [])
      assert.strictEqual(yield* triggers.nextWake, Date.parse("2026-03-28T08:31:00Z"), "awake at most 60 s apart")
      yield* at("2026-03-29T07:00:00Z")
      assert.deepStrictEqual((yield* triggers.fireDue()).map((f) => f.scheduledAt), ["2026-03-29T07:00:00.000Z"])
      assert.strictEqual((yield* submitted).length, 2)
    }).pipe(Effect.provide(world(schedule("0 9 * * *"))))
  )

  it.effect("only the repositories a Loop selects get an Event, and if: sees the Tick", () =>
    Effect.gen(function* () {
      yield* at("2026-03-28T08:00:00Z")
      const fired = yield* Effect.flatMap(ScheduleTriggers, (t) => t.fireDue())
      assert.deepStrictEqual(fired.map((f) => [f.loop, f.verdicts.map((v) => v._tag)]), [["weekend", ["Submitted"]]])
      assert.strictEqual(yield* Effect.flatMap(ScheduleTriggers, (t) => t.nextWake), Date.parse("2026-03-28T08:01:00Z"))
    }).pipe(
      Effect.provide(
        world(
          settingsOf(`repositories: [acme/widgets, acme/gadgets]
loops:
  - name: weekend
    on: schedule
    repositories: [acme/gadgets]
    cron: "0 9 * * *"
    tz: Europe/Paris
    if: item.tick.scheduledAtLocal.startsWith("2026-03-28") && item.tick.tz == "Europe/Paris"
    prompt: "go"
    agent: codex
`)
        )
      )
    )
  )
})
