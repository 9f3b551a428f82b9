import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { formatBytes, parseByteSize } from "@usine/core/config/ByteSize"
import { parseConfig } from "@usine/core/config/parseConfig"
import { DEFAULT_LIMITS } from "@usine/core/config/WorkerLimits"

const withWorker = (worker: string) => `
repositories: [acme/widgets]
agents:
  pi:
    harness: pi
workers:
  local:
    type: local
${worker}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: pi
`

const problemsOf = (text: string) =>
  parseConfig(text, { env: {} }).pipe(
    Effect.flip,
    Effect.map((invalid) => invalid.problems.map((p) => `${p.path}: ${p.message}`))
  )

describe("byte sizes", () => {
  it("reads numbers and units, binary for K/KiB, decimal for KB", () => {
    assert.strictEqual(parseByteSize(1048576), 1048576)
    assert.strictEqual(parseByteSize("1048576"), 1048576)
    assert.strictEqual(parseByteSize("512MiB"), 512 * 1024 ** 2)
    assert.strictEqual(parseByteSize("512M"), 512 * 1024 ** 2)
    assert.strictEqual(parseByteSize("4 G"), 4 * 1024 ** 3)
    assert.strictEqual(parseByteSize("1.5GiB"), 1.5 * 1024 ** 3)
    assert.strictEqual(parseByteSize("2GB"), 2_000_000_000)
    assert.strictEqual(parseByteSize("64kb"), 64_000)
    for (const bad of ["", "lots", "-1G", "0", "1.5", "12 parsecs", "1e3", "1constructor", "1__proto__", 0, -5, 1.5]) {
      assert.strictEqual(parseByteSize(bad), undefined, String(bad))
    }
    assert.strictEqual(formatBytes(1024 ** 3), "1 GiB")
    assert.strictEqual(formatBytes(1536 * 1024 ** 2), "1.5 GiB")
  })
})

describe("workers.<name>.limits", () => {
  it.effect("a Worker without limits gets the defaults and runs its agents as uid 65534", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(withWorker(""), { env: {} })
      assert.deepStrictEqual(config.workers["local"]?.limits, DEFAULT_LIMITS)
      assert.strictEqual(config.workers["local"]?.sandboxUid, 65534)
    })
  )

  it.effect("each limit and the uid are set per Worker; the rest keep their defaults", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(
        withWorker("    sandbox_uid: 1500\n    limits:\n      memory: 2GiB\n      processes: 64\n      cpu_seconds: 600\n      tmp: 256M\n      disk: 500MB"),
        { env: {} }
      )
      assert.strictEqual(config.workers["local"]?.sandboxUid, 1500)
      assert.deepStrictEqual(config.workers["local"]?.limits, {
        memory: 2 * 1024 ** 3,
        processes: 64,
        cpuSeconds: 600,
        tmp: 256 * 1024 ** 2,
        home: DEFAULT_LIMITS.home,
        disk: 500_000_000
      })
    })
  )

  it.effect("a size that is not one names its field and says what is expected", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(withWorker("    limits:\n      tmp: lots"))
      assert.strictEqual(problems.length, 1, problems.join("\n"))
      assert.include(problems[0], "workers.local.limits.tmp")
      assert.include(problems[0], "512MiB")
      assert.include(problems[0], '"lots"')
      const negative = yield* problemsOf(withWorker("    limits:\n      memory: -1G\n      processes: 0"))
      assert.strictEqual(negative.length, 2, negative.join("\n"))
      assert.include(negative.join("\n"), "workers.local.limits.memory")
      assert.include(negative.join("\n"), "workers.local.limits.processes")
    })
  )

  it.effect("the agent never runs as root: sandbox_uid 0 is refused", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(withWorker("    sandbox_uid: 0"))
      assert.strictEqual(problems.length, 1, problems.join("\n"))
      assert.include(problems[0], "workers.local.sandbox_uid")
    })
  )
})
