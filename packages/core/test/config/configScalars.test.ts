import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { splitCommandLine } from "@usine/core/config/AgentConfig"
import { matchRepository } from "@usine/core/config/matchRepository"
import { parseConfig } from "@usine/core/config/parseConfig"

describe("matchRepository", () => {
  it("matches globs per path part, ignoring case", () => {
    assert.isTrue(matchRepository("acme/*", "Acme/Widgets"))
    assert.isTrue(matchRepository("*/widgets", "acme/widgets"))
    assert.isTrue(matchRepository("acme/wid*", "acme/widgets"))
    assert.isFalse(matchRepository("acme/*", "acme-labs/widgets"))
    assert.isFalse(matchRepository("*", "acme/widgets"))
    assert.isFalse(matchRepository("acme/w.dgets", "acme/widgets"))
  })
})

describe("splitCommandLine", () => {
  it("splits on spaces and keeps quoted words whole", () => {
    assert.deepStrictEqual(Either.getOrThrow(splitCommandLine(`pi --model "big one" -x='a b' plain`)), [
      "pi",
      "--model",
      "big one",
      "-x=a b",
      "plain"
    ])
  })
  it("refuses unbalanced quotes and empty lines", () => {
    assert(Either.isLeft(splitCommandLine(`run "oops`)))
    assert(Either.isLeft(splitCommandLine("   ")))
  })
})

describe("interpolation", () => {
  it.effect("leaves keys alone and rejects a malformed reference", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(parseConfig("repositories: [a/b]\nledger: ${not a name}\n", { env: {} }))
      assert.strictEqual(error.problems.length, 1)
      assert.deepStrictEqual([error.problems[0]?.path, error.problems[0]?.line], ["ledger", 2])
      assert.include(error.problems[0]?.message, "not a variable reference")
    })
  )
  it.effect("an empty variable takes the default, an empty token means none", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig("repositories: [a/b]\nledger: ${L:-x.db}\ngithub: {token: '${T:-}'}\n", {
        env: { L: "" }
      })
      assert.deepStrictEqual(config.ledger, { _tag: "sqlite", file: "x.db" })
      assert.strictEqual(config.github.token._tag, "None")
    })
  )
})
