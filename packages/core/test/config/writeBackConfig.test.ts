import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { parseConfig } from "@usine/core/config/parseConfig"

const withLoop = (writeBack: string) => `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Fix {{ item.title }}"
    agent: codex
${writeBack}`

const itemLoop = (yaml: string) =>
  Effect.map(parseConfig(yaml, { env: {} }), (config) => config.loops[0] as ItemLoop)

describe("write-back configuration", () => {
  it.effect("a canceled Run takes off what running added unless status_labels.canceled says otherwise", () =>
    Effect.gen(function* () {
      const running = "    status_labels:\n      running: {add: [agent-working], remove: [ready-for-agent]}\n"
      assert.deepStrictEqual((yield* itemLoop(withLoop(running))).statusLabels.canceled, { add: [], remove: ["agent-working"] })
      const own = `${running}      canceled: {add: [ready-for-agent]}\n`
      assert.deepStrictEqual((yield* itemLoop(withLoop(own))).statusLabels.canceled, { add: ["ready-for-agent"], remove: [] })
      assert.deepStrictEqual((yield* itemLoop(withLoop(""))).statusLabels, {})
    }))

  it.effect("reviewers take logins, labeller and approver", () =>
    Effect.gen(function* () {
      const loop = yield* itemLoop(withLoop("    pull_request: {reviewers: [labeller, approver, octocat]}\n"))
      assert.deepStrictEqual(loop.pullRequest.reviewers, ["labeller", "approver", "octocat"])
    }))
})
