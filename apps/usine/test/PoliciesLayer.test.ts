import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { LoopPolicies } from "@usine/engine/LoopPolicies"
import { ConfigState } from "../src/ConfigState"
import { PoliciesLayer } from "../src/layers/PoliciesLayer"
import { configOf } from "./support/configOf"

describe("PoliciesLayer", () => {
  it.effect("reads the Loops and Workers in force; a removed Loop keeps its policy for the Runs it opened", () =>
    Effect.gen(function* () {
      const policies = yield* LoopPolicies
      const state = yield* ConfigState
      assert.deepStrictEqual([...policies.loops().keys()], ["alpha"])
      assert.deepStrictEqual(policies.workers(), [{ name: "local", maxConcurrentAttempts: 1, agents: ["codex"] }])

      yield* state.apply(configOf(["beta"], "workers:\n  big: {max_concurrent_attempts: 3}\n"))
      assert.deepStrictEqual([...policies.loops().keys()], ["beta"])
      assert.deepStrictEqual(policies.workers(), [{ name: "big", maxConcurrentAttempts: 3, agents: ["codex"] }])
      assert.isTrue(Option.isSome(policies.loop("beta")))
      assert.isTrue(Option.isSome(policies.loop("alpha")), "alpha's open Runs can still finish")
      assert.isFalse(policies.loop("alpha").pipe(Option.exists((p) => p.approvalRequired)))
      assert.isTrue(Option.isNone(policies.loop("never")))

      yield* state.apply(configOf(["alpha"]))
      assert.deepStrictEqual([...policies.loops().keys()], ["alpha"])
    }).pipe(Effect.provide(PoliciesLayer.pipe(Layer.provideMerge(ConfigState.layer(configOf(["alpha"]))))))
  )
})
