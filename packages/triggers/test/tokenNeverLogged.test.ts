import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"
import { settingsOf } from "./support/settingsOf"
import { REPOSITORY, SimAccount, SimGitHub } from "./support/SimGitHub"
import { TestLedger } from "./support/TestLedger"

const settings = settingsOf(`repositories: [acme/widgets]
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "{{ item.body | untrusted: 'issue body' }}"
    agent: codex
`)

const world = PollingTriggers.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(TestLedger, SimGitHub, TriggerConfig.fixed(settings)))
)

describe("the GitHub token in the triggers' logs", () => {
  it.live("never appears, whatever a cycle logs: refusals, faults, a refused token", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.map(Logger.logfmtLogger, (line) => void lines.push(line)))
      const sim = (yield* GitHubSim).control
      const { token } = yield* SimAccount
      yield* sim.createUser({ login: "mallory", permission: "triage" })
      yield* sim.createIssue({ repo: REPOSITORY, title: "Fix", labels: ["ready-for-agent"], author: "mallory" })
      const triggers = yield* PollingTriggers
      const cycles = Effect.gen(function* () {
        yield* triggers.pollOnce()
        yield* sim.setFault({ path: "/repos/acme/widgets/issues", status: 500, times: 4 })
        yield* sim.advanceTime({ ms: 2000 })
        yield* triggers.pollOnce()
        yield* sim.clearFaults()
        yield* sim.setFault({ method: "POST", path: "/graphql", status: 401, times: 2 })
        yield* sim.createIssue({ repo: REPOSITORY, title: "Again" })
        yield* triggers.pollOnce()
      })
      yield* cycles.pipe(Effect.provide(capture), Logger.withMinimumLogLevel(LogLevel.All))
      const text = lines.join("\n")
      assert.include(text, "trigger refused", "the refusal was logged")
      assert.include(text, "failed with 500", "the fault was logged")
      assert.include(text, "refused the token (401)", "the refused token was logged")
      assert.notInclude(text, token)
      assert.notMatch(text, /gh[pousr]_[A-Za-z0-9]{8,}|github_pat_/)
    }).pipe(Effect.provide(world), Effect.orDie)
  )
})
