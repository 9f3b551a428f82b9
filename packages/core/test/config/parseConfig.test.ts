import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { DEFAULT_LIMITS } from "@usine/core/config/WorkerLimits"
import { parseConfig } from "@usine/core/config/parseConfig"

const example = readFileSync(new URL("../../../../usine.yaml.example", import.meta.url), "utf8")

const minimal = `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: codex
`

describe("parseConfig", () => {
  it.effect("accepts the example and compiles every Loop", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(example, { env: {} })
      assert.deepStrictEqual(config.repositories, ["acme/widgets"])
      assert.deepStrictEqual(
        config.loops.map((loop) => [loop.name, loop.on]),
        [["start-dev", "issues"], ["review-pr", "pull_requests"], ["nightly-lint", "schedule"]]
      )
      const nightly = config.loops[2]
      assert(nightly?.on === "schedule")
      assert.strictEqual(nightly.schedule.tz, "Europe/Paris")
      // 03:00 in Paris on a weekday is 02:00 UTC in winter.
      const next = nightly.schedule.pattern.nextRun(new Date("2026-12-04T12:00:00Z"))
      assert.strictEqual(next?.toISOString(), "2026-12-07T02:00:00.000Z")
      assert(Option.isNone(config.github.token))
      assert.deepStrictEqual(config.agents["lint-fixer"]?.command, ["./scripts/agent-fix-lint.sh", "--write"])
      assert.deepStrictEqual(config.agents["codex"]?.env, { inherit: ["OPENAI_API_KEY"], values: {} })
    })
  )

  it.effect("fills the defaults the engine relies on", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(minimal, { env: {} })
      const loop = config.loops[0]
      assert(loop !== undefined && loop.on === "issues")
      assert.strictEqual(loop.maxCycles, 3)
      assert.strictEqual(loop.verifyRounds, 2)
      assert.deepStrictEqual(loop.forbiddenPaths, [".github/workflows/**"])
      assert.strictEqual(loop.approval, "required")
      assert.deepStrictEqual(loop.workers, ["local"])
      assert.deepStrictEqual(loop.repositories, ["acme/widgets"])
      assert.strictEqual(loop.maxAttemptMinutes, undefined)
      assert.strictEqual(loop.if.source, "true")
      assert(Duration.equals(config.pollInterval, Duration.seconds(60)))
      assert.deepStrictEqual(config.ledger, { _tag: "sqlite", file: ".usine/ledger.db" })
      assert.strictEqual(config.github.apiUrl, "https://api.github.com")
      assert.deepStrictEqual(config.board.listen, { host: "127.0.0.1", port: 8787 })
      assert.deepStrictEqual(config.workers, {
        local: { type: "local", maxConcurrentAttempts: 1, root: "~/.usine/workspaces", sandbox: "bubblewrap", sandboxUid: 65534, limits: DEFAULT_LIMITS }
      })
    })
  )

  it.effect("interpolates the environment it is given", () =>
    Effect.gen(function* () {
      const text = `${minimal}github:\n  token: \${GH_TOKEN}\n  api_url: \${API:-http://127.0.0.1:9999/}\npoll_interval: 5m\nledger: $\${HOME}/l.db\n`
      const config = yield* parseConfig(text, { env: { GH_TOKEN: "ghp_secret" } })
      assert.strictEqual(Option.map(config.github.token, Redacted.value).pipe(Option.getOrNull), "ghp_secret")
      assert.strictEqual(config.github.apiUrl, "http://127.0.0.1:9999")
      assert(Duration.equals(config.pollInterval, Duration.minutes(5)))
      assert.deepStrictEqual(config.ledger, { _tag: "sqlite", file: "${HOME}/l.db" })
      assert.notInclude(String(config.github.token), "ghp_secret")
    })
  )

  it.effect("resolves selectors and Workers", () =>
    Effect.gen(function* () {
      const text = `
repositories: [acme/widgets, acme/gears, other/thing]
agents:
  codex: {harness: codex}
  sh: {harness: command, command: "./run.sh --flag='a b'"}
workers:
  here: {max_concurrent_attempts: 2}
  box: {type: ssh, host: build@box, agents: [sh]}
loops:
  - {name: a, on: pull_requests, repositories: ["acme/*"], prompt: x, agent: codex}
  - {name: b, on: issues, repositories: ["*/thing", "ACME/Gears"], prompt: x, agent: sh}
`
      const config = yield* parseConfig(text, { env: {} })
      assert.deepStrictEqual(config.loops[0]?.repositories, ["acme/widgets", "acme/gears"])
      assert.deepStrictEqual(config.loops[0]?.workers, ["here"])
      assert.deepStrictEqual(config.loops[1]?.repositories, ["acme/gears", "other/thing"])
      assert.deepStrictEqual(config.loops[1]?.workers, ["here", "box"])
      assert.deepStrictEqual(config.agents["sh"]?.command, ["./run.sh", "--flag=a b"])
    })
  )
})
