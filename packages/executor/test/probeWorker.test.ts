import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as LocalTransport from "../src/LocalTransport"
import { missingCapabilityFailure, probeWorker, requireProc } from "../src/probeWorker"

const transport = LocalTransport.make("worker-1")

describe("probeWorker", () => {
  it.live("reports the binaries present and turns what is missing into an actionable AgentFailure", () =>
    Effect.gen(function* () {
      const capabilities = yield* probeWorker(transport, {
        binaries: ["git", "sh", "usine-no-such-cli"],
        checks: [
          { name: "sh login", argv: ["sh", "-c", "exit 0"], remedy: "never shown" },
          { name: "pi login", argv: ["usine-no-such-pi", "status"], remedy: "install pi" },
          { name: "codex login", argv: ["sh", "-c", "echo 'Not logged in' >&2; exit 1"], remedy: "run `codex login` as the daemon's user" }
        ]
      })
      assert.deepStrictEqual(capabilities.present, ["git", "sh"])
      assert.deepStrictEqual(capabilities.missing, [
        "usine-no-such-cli is not installed or not on PATH on worker-1",
        "pi login failed on worker-1: install pi (spawn usine-no-such-pi ENOENT)",
        "codex login failed on worker-1: run `codex login` as the daemon's user (Not logged in)"
      ])
      const failure = missingCapabilityFailure(capabilities)
      assert.strictEqual(failure?._tag, "AgentFailure")
      assert.strictEqual(failure?.reason, "usine-no-such-cli is not installed or not on PATH on worker-1")
      const ready = yield* probeWorker(transport, { binaries: ["git"] })
      assert.isUndefined(missingCapabilityFailure(ready))
    }))

  it.live("refuses a host without /proc: sessions could not be told apart or stopped there", () =>
    Effect.gen(function* () {
      const capabilities = yield* probeWorker(transport, { binaries: ["git"], procRoot: "/usine-no-proc" })
      assert.deepStrictEqual(capabilities.present, ["git"])
      assert.deepStrictEqual(capabilities.missing, ["worker-1 has no /proc: usine runs agents on Linux Workers only (ADR 0014)"])
      const refused = yield* Effect.flip(requireProc(transport, "builder", "/usine-no-proc"))
      assert.strictEqual(refused.message, "the Worker builder (worker-1) has no /proc: usine runs agents on Linux Workers only (ADR 0014)")
      yield* requireProc(transport, "builder")
    }))
})
