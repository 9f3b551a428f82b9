import { assert, describe, it } from "@effect/vitest"
import { CodexHarness } from "@usine/executor/harness/CodexHarness"
import { MODEL_PROVIDER_KEY_VARIABLE } from "@usine/executor/harness/Harness"
import { PiHarness } from "@usine/executor/harness/PiHarness"

const input = { prompt: "p", model: "ignored-model", workdir: "/w/tree", attemptDir: "/w/attempt", command: undefined }
const provider = { baseUrl: "http://127.0.0.1:4010/v1", model: "sim-model" }

describe("a model provider in the harnesses' invocations (the real CLIs read them in realcli/)", () => {
  it("Pi: a models.json for the endpoint in the Attempt's agent dir, the provider selected, the key only in the environment", () => {
    const inv = PiHarness.invocation({ ...input, modelProvider: { ...provider, apiKey: "k-1" } })
    assert.deepStrictEqual(inv.argv.slice(-4), ["--provider", "usine", "--model", "sim-model"])
    assert.strictEqual(inv.env[MODEL_PROVIDER_KEY_VARIABLE], "k-1")
    assert.deepStrictEqual(JSON.parse(inv.files["pi-agent/models.json"] ?? ""), {
      providers: {
        usine: {
          baseUrl: provider.baseUrl,
          api: "openai-completions",
          apiKey: MODEL_PROVIDER_KEY_VARIABLE,
          compat: { supportsDeveloperRole: false },
          models: [{ id: "sim-model" }]
        }
      }
    })
    const keyless = PiHarness.invocation({ ...input, modelProvider: provider })
    assert.notProperty(keyless.env, MODEL_PROVIDER_KEY_VARIABLE)
    assert.strictEqual(JSON.parse(keyless.files["pi-agent/models.json"] ?? "").providers.usine.apiKey, "no-key")
  })

  it("Codex: the provider declared and selected in the Attempt's config.toml, its key read from the environment", () => {
    const inv = CodexHarness.invocation({ ...input, modelProvider: { ...provider, apiKey: "k-1" } })
    // Codex runs as its app-server (ADR 0068): the provider's model is asked for when the thread opens, on stdin.
    assert.deepStrictEqual(inv.argv.slice(-2), ["codex", "app-server"])
    const resume = String(inv.stdin).split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)).find((m) => m.method === "thread/resume")
    assert.strictEqual(resume?.params.model, "sim-model")
    assert.strictEqual(resume?.params.cwd, "/w/tree")
    assert.strictEqual(inv.env[MODEL_PROVIDER_KEY_VARIABLE], "k-1")
    const config = inv.files["codex-home/config.toml"] ?? ""
    assert.include(config, 'model_provider = "usine"\n\n[model_providers.usine]\nname = "usine"\n')
    assert.include(config, `base_url = "${provider.baseUrl}"\nwire_api = "responses"\nenv_key = "${MODEL_PROVIDER_KEY_VARIABLE}"\n`)
    assert.notInclude(config, "k-1")
    const keyless = CodexHarness.invocation({ ...input, modelProvider: provider })
    assert.notInclude(keyless.files["codex-home/config.toml"], "env_key")
    assert.notProperty(keyless.env, MODEL_PROVIDER_KEY_VARIABLE)
  })

  it("without a provider, both invocations are what they were", () => {
    assert.deepStrictEqual(Object.keys(PiHarness.invocation(input).files), ["pi-agent/settings.json"])
    assert.notInclude(CodexHarness.invocation(input).files["codex-home/config.toml"], "model_provider")
    assert.deepStrictEqual(PiHarness.invocation(input).argv.slice(-2), ["--model", "ignored-model"])
  })
})
