import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import { parseConfig } from "@usine/core/config/parseConfig"

const file = (loopExtra: string) => `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: issues
    prompt: x
    agent: codex
${loopExtra}
`

describe("a Loop's output caps (ADR 0085)", () => {
  it.effect("default to a 64 KiB verify tail, 1 MiB lines, 20,000 rows and 16 MiB of transcript, 16 MiB of diff", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(file(""), { env: {} })
      assert.deepStrictEqual(config.loops[0]?.output, {
        verifyBytes: 65_536,
        lineBytes: 1_048_576,
        transcriptRows: 20_000,
        transcriptBytes: 16_777_216,
        diffBytes: 16_777_216
      })
      assert.deepStrictEqual(config.loops[0]?.output, defaultOutputCaps)
    }))

  it.effect("read sizes in bytes or with a unit; a key left out keeps its default", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(file("    output: {verify_bytes: 8KiB, line_bytes: 4096, transcript_rows: 500, diff_bytes: 2 MiB}"), { env: {} })
      assert.deepStrictEqual(config.loops[0]?.output, {
        verifyBytes: 8192,
        lineBytes: 4096,
        transcriptRows: 500,
        transcriptBytes: 16_777_216,
        diffBytes: 2_097_152
      })
    }))

  it.effect("refuse a bad size, a zero, and an unknown key, naming each field on its line", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(parseConfig(file(`    output:
      verify_bytes: 64 KB
      transcript_rows: 0
      transcript_byte: 1MiB`), { env: {} }))
      const problems = error.problems.map((p) => `${p.line} ${p.path}: ${p.message}`)
      assert.strictEqual(problems.length, 3, problems.join("\n"))
      assert.match(problems[0] ?? "", /^11 loops\[0\]\.output\.verify_bytes: expected a size above zero in bytes, or with a unit B, KiB, MiB or GiB/)
      assert.match(problems[1] ?? "", /^12 loops\[0\]\.output\.transcript_rows: expected a whole number, 2 or more, got 0/)
      assert.match(problems[2] ?? "", /^13 loops\[0\]\.output\.transcript_byte: unknown key `transcript_byte`.*`transcript_bytes`/)
    }))
})
