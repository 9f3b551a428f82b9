import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import { STDERR_TAIL_LINES } from "../../src/WorkerExecutor/stderrTail"
import { makeAttempt, makeRun, policy, recorder, setup, simLayer } from "./support/fixture"

/** A CLI that says a little on stdout, a lot on stderr, then fails the way CLIs do: its reason on stderr. */
const crashing = (secret: string): AgentConfig => ({
  harness: "command",
  command: [
    "sh",
    "-c",
    `echo "reading the issue with key ${secret}"; i=1; while [ $i -le 30 ]; do echo "retrying the model request ($i)" >&2; i=$((i+1)); done; ` +
    `echo "fatal: the model provider hung up (key ${secret})" >&2; exit 3`
  ],
  env: { inherit: [], values: {} }
})

/** Shaped like a GitHub token: what an agent's stderr shows goes through the redactor like its stream. */
const LEAKED = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`

describe("an agent's failure carries what it wrote on stderr", () => {
  it.scopedLive("the last lines of stderr follow the stream's own evidence, redacted; an agent that ends well still succeeds", () =>
    Effect.gen(function* () {
      const t = yield* setup({ agents: { crashing: crashing(LEAKED) } })
      const run = makeRun("crashing")
      const outcome = yield* t.executor.execute(recorder().request(run, makeAttempt(run, 1), policy()))
      assert.strictEqual(outcome._tag, "Failed", JSON.stringify(outcome))
      if (outcome._tag !== "Failed") return
      const { failure } = outcome
      assert.strictEqual(failure._tag, "AgentFailure")
      assert.strictEqual(failure.reason, "the agent's CLI exited with code 3")
      const [stdout, stderr] = failure.evidence.split("\n\nstderr:\n")
      assert.match(stdout ?? "", /^reading the issue with key \[REDACTED[^\]]*\]$/, "the stream's evidence first, redacted too")
      const lines = stderr?.split("\n") ?? []
      assert.strictEqual(lines.length, STDERR_TAIL_LINES, failure.evidence)
      assert.strictEqual(lines[0], "retrying the model request (12)", "the last lines only")
      assert.match(lines.at(-1) ?? "", /^fatal: the model provider hung up \(key \[REDACTED[^\]]*\]\)$/)
      assert.notInclude(failure.evidence, LEAKED)

      const fine = makeRun("edit")
      const succeeded = yield* t.executor.execute(recorder().request(fine, makeAttempt(fine, 1), policy()))
      assert.strictEqual(succeeded._tag, "Succeeded", JSON.stringify(succeeded))
    }).pipe(Effect.provide(simLayer)), 60_000)
})
