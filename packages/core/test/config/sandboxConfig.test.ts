import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { parseConfig } from "@usine/core/config/parseConfig"

const example = readFileSync(new URL("../../../../usine.yaml.example", import.meta.url), "utf8")

const withKeys = (keys: { readonly worker?: string; readonly agent?: string; readonly loop?: string }) => `
repositories: [acme/widgets]
agents:
  pi:
    harness: pi
${keys.agent ?? ""}
workers:
  local:
    type: local
${keys.worker ?? ""}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: pi
${keys.loop ?? ""}
`

const problemsOf = (text: string) =>
  parseConfig(text, { env: {} }).pipe(
    Effect.flip,
    Effect.map((invalid) => invalid.problems.map((p) => `${p.path}: ${p.message}`))
  )

describe("the sandbox keys", () => {
  it.effect("a Worker sandboxes with bubblewrap unless it says none; Agents and Loops name hosts and read-only files", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(example, { env: {} })
      assert.strictEqual(config.workers["local"]?.sandbox, "bubblewrap")
      assert.deepStrictEqual(config.agents["codex"]?.network, ["api.github.com:443"])
      assert.deepStrictEqual(config.agents["codex"]?.sandboxReadOnly, ["~/.gitconfig"])
      assert.deepStrictEqual(config.loops[0]?.network, ["registry.npmjs.org:443"])
      assert.deepStrictEqual(config.loops[1]?.network, [])

      const unconfined = yield* parseConfig(withKeys({ worker: "    sandbox: none" }), { env: {} })
      assert.strictEqual(unconfined.workers["local"]?.sandbox, "none")
    })
  )

  it.effect("refuses another sandbox and endpoints that are not host:port", () =>
    Effect.gen(function* () {
      const sandbox = yield* problemsOf(withKeys({ worker: "    sandbox: docker" }))
      assert.strictEqual(sandbox.length, 1, sandbox.join("\n"))
      assert.include(sandbox[0], "workers.local.sandbox")
      const agent = yield* problemsOf(withKeys({ agent: '    network: ["registry.npmjs.org"]' }))
      assert.strictEqual(agent.length, 1, agent.join("\n"))
      assert.include(agent[0], "host:port")
      const loop = yield* problemsOf(withKeys({ loop: '    network: ["https://registry.npmjs.org:443"]' }))
      assert.strictEqual(loop.length, 1, loop.join("\n"))
      assert.include(loop[0], "loops[0].network[0]")
    })
  )
})
