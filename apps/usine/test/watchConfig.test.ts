import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, TestClock } from "effect"
import { ConfigState } from "../src/ConfigState"
import { reloadable, watchConfig } from "../src/watchConfig"
import { configOf, configText } from "./support/configOf"
import { scopedDir } from "./support/scopedSim"

/** Lets the watcher's file read (real I/O) finish after the clock moved. */
const settle = <A, R>(label: string, check: Effect.Effect<A | undefined, never, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 2_000; i++) {
      const value = yield* check
      if (value !== undefined) return value
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
    }
    return yield* Effect.dieMessage(`never happened: ${label}`)
  })

const loopNames: Effect.Effect<string, never, ConfigState> = Effect.map(ConfigState, (state) =>
  state.unsafeGet().loops.map((loop) => loop.name).join(",")
)

describe("watchConfig", () => {
  it.scoped("applies a valid edit after the poll interval, and keeps the configuration in force on a broken one", () =>
    Effect.gen(function* () {
      const file = join(yield* scopedDir, "usine.yaml")
      writeFileSync(file, configText(["alpha"]))
      const state = yield* ConfigState
      const started = state.unsafeGet()
      yield* Effect.forkScoped(watchConfig(file))
      yield* settle("the first look", Effect.sync(() => (state.unsafeGet() !== started ? true : undefined)))
      assert.strictEqual(yield* loopNames, "alpha")

      writeFileSync(file, configText(["alpha", "beta"]))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* loopNames, "alpha", "nothing before the next look")
      yield* TestClock.adjust("1 second")
      yield* settle("beta applied", Effect.map(loopNames, (names) => (names === "alpha,beta" ? names : undefined)))

      writeFileSync(file, configText(["alpha", "beta", "gamma"], "poll_interval: soon\n"))
      yield* TestClock.adjust("2 seconds")
      const rejection = yield* settle("the rejection", Effect.map(state.rejection, Option.getOrUndefined))
      assert.include(rejection.message, "poll_interval: expected seconds")
      assert.strictEqual(rejection.file, file)
      assert.strictEqual(yield* loopNames, "alpha,beta")

      writeFileSync(file, configText(["beta"]))
      yield* TestClock.adjust("2 seconds")
      yield* settle("beta alone", Effect.map(loopNames, (names) => (names === "beta" ? names : undefined)))
      assert.isTrue(Option.isNone(yield* state.rejection), "a valid edit clears the report")
    }).pipe(Effect.provide(Layer.merge(ConfigState.layer(configOf(["alpha"])), NodeContext.layer)))
  )

  it("keeps the keys only a restart applies, and names them; Workers follow", () => {
    const running = configOf(["alpha"], "ledger: a.db\nboard: {listen: \"127.0.0.1:9000\"}\n")
    const next = configOf(["alpha", "beta"], "ledger: b.db\nboard: {listen: \"127.0.0.1:9001\"}\nworkers: {big: {}}\n")
    const { config, needRestart } = reloadable(running, next)
    assert.deepStrictEqual(needRestart, ["ledger", "board.listen"])
    assert.deepStrictEqual(Object.keys(config.workers), ["big"])
    assert.deepStrictEqual(config.ledger, { _tag: "sqlite", file: "a.db" })
    assert.deepStrictEqual(config.board.listen, { host: "127.0.0.1", port: 9000 })
    assert.deepStrictEqual(config.loops.map((l) => l.name), ["alpha", "beta"])
  })
})
