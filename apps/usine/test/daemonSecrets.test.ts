import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { daemonSecrets, isSecretName } from "../src/daemon/daemonSecrets"

const config = Effect.runSync(parseConfig(`repositories: [acme/widgets]
github:
  webhook_secret: webhook-secret-value
board:
  token: board-token-value-0123456789abcdef
agents:
  pi:
    harness: pi
    provider: {base_url: "http://127.0.0.1:9/v1", api_key_env: MODEL_KEY, model: m}
  tool:
    harness: command
    command: [node, agent.mjs]
    env: [OPENAI_API_KEY, HTTPS_PROXY, UNSET_TOKEN]
  fixed:
    harness: command
    command: [node, agent.mjs]
    env: {HF_TOKEN: hf-fixed-token-value, GIT_AUTHOR_NAME: usine-agent-name, db_password: hunter2hunter2}
notify:
  - {type: slack, url: "https://hooks.slack.com/services/T0/B0/slack-hook-secret"}
  - {type: webhook, url: "https://example.com/hook", secret: notify-signing-secret}
loops: []
`, { env: {} }))

describe("daemonSecrets", () => {
  it("lists the tokens, the webhook secret, every provider key and every credential-named variable an Agent is granted or given", () => {
    const secrets = daemonSecrets({
      config,
      token: Redacted.make("github-token-value"),
      env: {
        MODEL_KEY: "model-key-value",
        OPENAI_API_KEY: "sk-granted-key-value",
        HTTPS_PROXY: "http://proxy.internal:3128",
        UNSET_TOKEN: "",
        GITHUB_TOKEN: "not-granted-to-any-agent"
      }
    })
    assert.deepStrictEqual([...secrets].sort(), [
      "board-token-value-0123456789abcdef",
      "github-token-value",
      "hf-fixed-token-value",
      "https://example.com/hook",
      "https://hooks.slack.com/services/T0/B0/slack-hook-secret",
      "hunter2hunter2",
      "model-key-value",
      "notify-signing-secret",
      "sk-granted-key-value",
      "webhook-secret-value"
    ])
  })

  it("tells credential names from ordinary ones", () => {
    for (const name of ["OPENAI_API_KEY", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "apiKey", "NPM_AUTH", "APIKEY"]) {
      assert.isTrue(isSecretName(name), name)
    }
    for (const name of ["GIT_AUTHOR_NAME", "PWD", "HTTPS_PROXY", "NODE_ENV", "KEYBOARD_LAYOUT", "PATH"]) {
      assert.isFalse(isSecretName(name), name)
    }
  })
})
