import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const variables = (dump: string) =>
  new Map(
    dump
      .split("\n")
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)] as const)
  )

/** Sets variables in this process's environment for the scope, as a daemon started with them would have. */
const daemonVariables = (values: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]))
      Object.assign(process.env, values)
      return before
    }),
    (before) =>
      Effect.sync(() => {
        for (const [name, value] of Object.entries(before)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  )

describe("the agent's environment", () => {
  it.scopedLive(
    "holds no GitHub token and no SSH agent even when the daemon's does, nor do the verify commands",
    () =>
      Effect.gen(function* () {
        const dumps = yield* scopedTempDir("usine-env-")
        // In the worktree: the sandbox lets nothing else be written. They reach the pushed branch, where they are read.
        const t = yield* setup({ agents: { env: scriptedAgent("env", { ENV_DUMP: "agent.env" }) } })
        yield* daemonVariables({
          GITHUB_TOKEN: t.account.token,
          GH_TOKEN: t.account.token,
          SSH_AUTH_SOCK: path.join(dumps, "ssh-agent.sock"),
          USINE_BOARD_SECRET: "board-session-secret-value"
        })
        const run = makeRun("env")
        const outcome = yield* t.executor.execute(
          recorder().request(run, makeAttempt(run, 1), policy({ verify: ["env > verify.env"] }))
        )
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return
        const pushed = (file: string) => t.origin("show", `${outcome.result.branch}:${file}`)

        for (const file of ["agent.env", "verify.env"]) {
          const dump = pushed(file)
          const env = variables(dump)
          assert.isTrue(env.has("PATH"), `${file} is a real environment dump`)
          for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "SSH_AUTH_SOCK", "USINE_BOARD_SECRET", "GIT_ASKPASS"]) {
            assert.isFalse(env.has(name), `${name} leaked into ${path.basename(file)}`)
          }
          assert.notInclude(dump, t.account.token)
          assert.notInclude(dump, "board-session-secret-value")
        }
        const agentEnv = variables(pushed("agent.env"))
        assert.strictEqual(agentEnv.get("AGENT_MODE"), "env", "what the Agent's config sets does arrive")
        assert.strictEqual(agentEnv.get("GIT_TERMINAL_PROMPT"), "0")
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})
