import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { trustWarnings } from "@usine/core/trust/trustWarnings"

const config = (loopKeys: string, on = "issues") => `
repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: ${on}
    prompt: "Fix"
    agent: codex
${loopKeys}`

describe("trust in usine.yaml", () => {
  it.effect("defaults to collaborators with nobody listed, and warns about nothing", () =>
    Effect.gen(function* () {
      const parsed = yield* parseConfig(config(""), { env: {} })
      const loop = parsed.loops[0]
      assert(loop !== undefined && loop.on !== "schedule")
      assert.deepStrictEqual(loop.trust, { mode: "collaborators", trustedAuthors: [] })
      assert.deepStrictEqual(trustWarnings(parsed), [])
    })
  )

  it.effect("reads trust and trusted_authors, and warns about trust: anyone", () =>
    Effect.gen(function* () {
      const parsed = yield* parseConfig(config("    trust: anyone\n    trusted_authors: [ada, 'renovate[bot]']\n"), { env: {} })
      const loop = parsed.loops[0]
      assert(loop !== undefined && loop.on !== "schedule")
      assert.deepStrictEqual(loop.trust, { mode: "anyone", trustedAuthors: ["ada", "renovate[bot]"] })
      const warnings = trustWarnings(parsed)
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0], "loop fix: trust: anyone lets any GitHub user")
    })
  )

  it.effect("reads trust: strict, which warns about nothing", () =>
    Effect.gen(function* () {
      const parsed = yield* parseConfig(config("    trust: strict\n"), { env: {} })
      const loop = parsed.loops[0]
      assert(loop !== undefined && loop.on !== "schedule")
      assert.deepStrictEqual(loop.trust, { mode: "strict", trustedAuthors: [] })
      assert.deepStrictEqual(trustWarnings(parsed), [])
    })
  )

  it.effect("refuses an unknown mode, a malformed login, and trust keys on a schedule Loop", () =>
    Effect.gen(function* () {
      const mode = yield* Effect.flip(parseConfig(config("    trust: everyone\n"), { env: {} }))
      assert.strictEqual(mode.problems[0]?.path, "loops[0].trust")
      const login = yield* Effect.flip(parseConfig(config('    trusted_authors: ["not a login"]\n'), { env: {} }))
      assert.strictEqual(login.problems[0]?.path, "loops[0].trusted_authors[0]")
      const schedule = yield* Effect.flip(
        parseConfig(config('    cron: "0 3 * * *"\n    trusted_authors: [ada]\n', "schedule"), { env: {} })
      )
      assert.deepStrictEqual(schedule.problems.map((p) => [p.path, p.message]), [
        ["loops[0].trusted_authors", "a schedule Loop has no author to trust; remove `trusted_authors`"]
      ])
    })
  )
})
