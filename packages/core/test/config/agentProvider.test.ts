import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { modelProviderOf } from "@usine/core/config/AgentConfig"
import { parseConfig } from "@usine/core/config/parseConfig"

const withAgent = (agent: string) => `
repositories: [acme/widgets]
agents:
  pi:
${agent}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: pi
`

const problemsOf = (agent: string) =>
  parseConfig(withAgent(agent), { env: {} }).pipe(
    Effect.flip,
    Effect.map((invalid) => invalid.problems.map((p) => `${p.path}: ${p.message}`))
  )

describe("an Agent's provider", () => {
  it.effect("points a CLI at a model server: base URL, the variable holding the key, the model", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(
        withAgent(`    harness: pi
    provider: {base_url: "http://127.0.0.1:4010/v1", api_key_env: SIM_KEY, model: sim-model}`),
        { env: {} }
      )
      const agent = config.agents["pi"]
      assert.deepStrictEqual(agent?.provider, { baseUrl: "http://127.0.0.1:4010/v1", apiKeyEnv: "SIM_KEY", model: "sim-model" })
      assert(agent !== undefined)
      assert.deepStrictEqual(modelProviderOf(agent, { SIM_KEY: "k-1", OTHER: "x" }), {
        baseUrl: "http://127.0.0.1:4010/v1",
        model: "sim-model",
        apiKey: "k-1"
      })
      // An unset or empty variable: the CLI gets no key, and its provider refuses it as unauthenticated.
      assert.deepStrictEqual(modelProviderOf(agent, { SIM_KEY: "" }), { baseUrl: "http://127.0.0.1:4010/v1", model: "sim-model" })
      assert.isUndefined(modelProviderOf({ ...agent, provider: undefined }, { SIM_KEY: "k-1" }))
    })
  )

  it.effect("is optional, and the key variable within it too", () =>
    Effect.gen(function* () {
      const plain = yield* parseConfig(withAgent("    harness: pi"), { env: {} })
      assert.isUndefined(plain.agents["pi"]?.provider)
      const keyless = yield* parseConfig(
        withAgent(`    harness: codex
    provider: {base_url: "https://models.internal/v1", model: m}`),
        { env: {} }
      )
      assert.deepStrictEqual(keyless.agents["pi"]?.provider, { baseUrl: "https://models.internal/v1", model: "m" })
    })
  )

  it.effect("points Claude Code at an Anthropic-compatible endpoint the same way", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(
        withAgent(`    harness: claude
    provider: {base_url: "http://127.0.0.1:4010/v1", api_key_env: SIM_KEY, model: sim-model}`),
        { env: {} }
      )
      const agent = config.agents["pi"]
      assert.strictEqual(agent?.harness, "claude")
      assert.deepStrictEqual(agent?.provider, { baseUrl: "http://127.0.0.1:4010/v1", apiKeyEnv: "SIM_KEY", model: "sim-model" })
    })
  )

  it.effect("refuses what a CLI could not use, each problem at its key", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* problemsOf(`    harness: pi
    provider: {base_url: "127.0.0.1:4010/v1", api_key_env: "SIM-KEY", model: ""}`), [
        'agents.pi.provider.base_url: expected an http(s) URL with its API version, like `http://127.0.0.1:8080/v1`, got "127.0.0.1:4010/v1"',
        "agents.pi.provider.api_key_env: expected an environment variable name, got \"SIM-KEY\"",
        'agents.pi.provider.model: expected a non-empty string, got ""'
      ])
      assert.deepStrictEqual(yield* problemsOf(`    harness: pi
    provider: {base_url: "ftp://127.0.0.1/v1", model: m, api_key: sk-123}`), [
        'agents.pi.provider.base_url: expected an http(s) URL with its API version, like `http://127.0.0.1:8080/v1`, got "ftp://127.0.0.1/v1"',
        "agents.pi.provider.api_key: unknown key `api_key`; expected one of `base_url`, `api_key_env`, `model`"
      ])
      assert.deepStrictEqual(yield* problemsOf(`    harness: pi
    provider: {model: m}`), ["agents.pi.provider.base_url: required key `base_url` is missing"])
      assert.deepStrictEqual(yield* problemsOf(`    harness: command
    command: ./agent.sh
    provider: {base_url: "http://127.0.0.1:4010/v1", model: m}`), [
        "agents.pi.provider: `provider` applies only to the codex, pi and claude harnesses, not `command`"
      ])
    })
  )
})
