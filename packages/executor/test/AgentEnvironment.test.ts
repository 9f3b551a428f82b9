import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { agentEnvironment, BASE_VARIABLES } from "../src/AgentEnvironment"

const daemonEnv = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: "/home/usine",
  LANG: "C.UTF-8",
  USER: "usine",
  EDITOR: "vim",
  GITHUB_TOKEN: "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
  GH_TOKEN: "gho_0123456789abcdefghijklmnopqrstuvwxyz",
  USINE_GITHUB_TOKEN: "ghs_0123456789abcdefghijklmnopqrstuvwxyz",
  USINE_SESSION_SECRET: "board-session-secret",
  SSH_AUTH_SOCK: "/tmp/ssh-XYZ/agent.1",
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  NPM_TOKEN: "npm_abcdef",
  ANTHROPIC_API_KEY: "sk-ant-api03-granted",
  OPENAI_API_KEY: "sk-proj-not-granted"
}

const config = {
  grant: ["ANTHROPIC_API_KEY", "MISSING_KEY", "BAD=NAME"],
  set: { HTTPS_PROXY: "http://127.0.0.1:3128", CODEX_HOME: "/ignored" }
}

describe("agentEnvironment", () => {
  it("gives the agent the base, what its config grants or sets, and the harness's own; no daemon secret", () => {
    const result = agentEnvironment({ daemonEnv, config, harness: { CODEX_HOME: "/attempt/codex-home" } })
    assert.deepStrictEqual(result.env, {
      PATH: daemonEnv.PATH,
      HOME: "/home/usine",
      LANG: "C.UTF-8",
      USER: "usine",
      GIT_TERMINAL_PROMPT: "0",
      ANTHROPIC_API_KEY: "sk-ant-api03-granted",
      HTTPS_PROXY: "http://127.0.0.1:3128",
      CODEX_HOME: "/attempt/codex-home"
    })
    assert.deepStrictEqual(result.missing, ["MISSING_KEY"])
    assert.deepStrictEqual(result.rejected, ["BAD=NAME"])
  })

  it("passes a credential only when granted by its exact name", () => {
    const granted = agentEnvironment({ daemonEnv, config: { grant: ["GITHUB_TOKEN"], set: {} }, harness: {} })
    assert.strictEqual(granted.env["GITHUB_TOKEN"], daemonEnv.GITHUB_TOKEN)
    assert.notProperty(granted.env, "GH_TOKEN")
    assert.notProperty(granted.env, "USINE_GITHUB_TOKEN")
  })

  it("never lets through a daemon variable outside the base, the grants, the literals and the harness", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/), fc.string()),
        fc.uniqueArray(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,12}$/), { maxLength: 3 }),
        (env, grant) => {
          const { env: out } = agentEnvironment({ daemonEnv: env, config: { grant, set: { LIT: "1" } }, harness: { H: "2" } })
          const allowed = new Set([...BASE_VARIABLES, ...grant, "LIT", "H", "GIT_TERMINAL_PROMPT"])
          return Object.keys(out).every((name) => allowed.has(name))
        }
      )
    )
  })

  it.effect("is exactly what a process spawned without extending the daemon's environment sees", () =>
    Effect.gen(function* () {
      const { env } = agentEnvironment({ daemonEnv, config, harness: {} })
      const printed = yield* Command.make("node", "-e", "process.stdout.write(JSON.stringify(process.env))").pipe(
        Command.env(env, { extendEnv: false }),
        Command.string
      )
      assert.deepStrictEqual(JSON.parse(printed), env)
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
