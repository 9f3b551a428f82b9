import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"

const file = (loopExtra: string, top = "") => `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
${top}
loops:
  - name: fix
    on: issues
    prompt: x
    agent: codex
${loopExtra}
`

describe("budget and brake keys", () => {
  it.effect("default to no caps, a no-progress brake of 2, and no WIP limit", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(file(""), { env: {} })
      const loop = config.loops[0]
      assert(loop?.on === "issues")
      assert.deepStrictEqual(loop.budget, {})
      assert.strictEqual(loop.maxNoProgress, 2)
      assert.strictEqual(loop.maxOpenPullRequests, undefined)
      assert.deepStrictEqual(config.budget, {})
    }))

  it.effect("read caps per Run and per day, the brake and the WIP limit, and global daily caps", () =>
    Effect.gen(function* () {
      const loopKeys = [
        "    budget: {run_tokens: 200000, run_cost_usd: 2.5, daily_tokens: 5000000, daily_cost_usd: 40}",
        "    max_no_progress: 0",
        "    max_open_pull_requests: 3"
      ].join("\n")
      const config = yield* parseConfig(file(loopKeys, "budget: {daily_tokens: 9000000, daily_cost_usd: 100}"), { env: {} })
      const loop = config.loops[0]
      assert(loop?.on === "issues")
      assert.deepStrictEqual(loop.budget, { runTokens: 200000, runCostUsd: 2.5, dailyTokens: 5000000, dailyCostUsd: 40 })
      assert.strictEqual(loop.maxNoProgress, 0)
      assert.strictEqual(loop.maxOpenPullRequests, 3)
      assert.deepStrictEqual(config.budget, { dailyTokens: 9000000, dailyCostUsd: 100 })
    }))

  it.effect("refuse a negative cap, an unknown budget key, and a brake on a schedule Loop, each on its line", () =>
    Effect.gen(function* () {
      const bad = `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
budget: {daily_tokens: -1}
loops:
  - name: fix
    on: issues
    prompt: x
    agent: codex
    budget: {run_token: 5}
  - name: nightly
    on: schedule
    cron: "0 3 * * *"
    prompt: x
    agent: codex
    max_no_progress: 2
`
      const error = yield* Effect.flip(parseConfig(bad, { env: {} }))
      const problems = error.problems.map((p) => `${p.line} ${p.path}: ${p.message}`)
      assert.strictEqual(problems.length, 3, problems.join("\n"))
      assert.match(problems[0] ?? "", /^5 budget\.daily_tokens: expected a positive whole number, got -1/)
      assert.match(problems[1] ?? "", /^11 loops\[0\]\.budget\.run_token: unknown key `run_token` \(did you mean `run_tokens`\?\)/)
      assert.match(problems[2] ?? "", /^17 loops\[1\]\.max_no_progress: schedule Loops have no no-progress brake/)
    }))
})
