import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import { makeAttempt, makeRun, policy, recorder, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 60_000

describe("WorkerExecutor output caps (ADR 0085)", () => {
  it.scopedLive(
    "a verify command's flood keeps its tail and the count of what was dropped; a diff over `diff_bytes` is the agent's failure, no pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()

        const floodRun = makeRun("edit")
        const flooded = yield* t.executor.execute(recorder().request(floodRun, makeAttempt(floodRun, 1), policy({
          verify: ["head -c 3000000 /dev/zero | tr '\\0' v; exit 1"],
          verifyRounds: 0,
          output: { ...defaultOutputCaps, verifyBytes: 1000 }
        })))
        assert.strictEqual(flooded._tag === "Failed" && flooded.failure._tag, "AgentFailure", JSON.stringify(flooded))
        const evidence = flooded._tag === "Failed" ? flooded.failure.evidence : ""
        assert.match(evidence, /…\[(\d+) bytes dropped\]\nv{1000}$/)
        assert.strictEqual(Number(/…\[(\d+) bytes dropped\]/.exec(evidence)?.[1]), 3_000_000 - 1000)

        // Failed verification salvages the work to a branch of its own; from here nothing more may reach GitHub.
        const before = t.branches()
        const bigRun = makeRun("edit")
        const big = yield* t.executor.execute(recorder().request(bigRun, makeAttempt(bigRun, 1), policy({
          output: { ...defaultOutputCaps, diffBytes: 100 }
        })))
        assert.strictEqual(big._tag === "Failed" && big.failure._tag, "AgentFailure", JSON.stringify(big))
        assert.include(big._tag === "Failed" ? big.failure.reason : "", "the change is too large: its diff is over 100 bytes (output.diff_bytes)")
        // The work is kept on its salvage branch (salvage has no size guard below the exec cap); nothing else is pushed.
        const pushed = [...t.branches()].filter((branch) => !before.includes(branch))
        assert.deepStrictEqual(pushed, [`usine/salvage/${bigRun.id}/1`])
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
