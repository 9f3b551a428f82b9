import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { compileCel } from "@usine/core/config/CelExpression"
import { evaluateIf } from "@usine/core/config/evaluateIf"

const loop = (source: string) => ({ name: "fix", if: Either.getOrThrow(compileCel(source)) })
const issue = { number: 7, state: "OPEN", labels: ["bug", "ready-for-agent"], author: { login: "ada" }, score: 2.5 }

describe("evaluateIf", () => {
  it.effect("evaluates against the Item and its repository", () =>
    Effect.gen(function* () {
      const context = { item: issue, repository: "acme/widgets" }
      assert.isTrue(yield* evaluateIf(loop('"ready-for-agent" in item.labels && item.state == "OPEN"'), context))
      assert.isFalse(yield* evaluateIf(loop('"wontfix" in item.labels'), context))
      assert.isTrue(yield* evaluateIf(loop('repository.startsWith("acme/") && item.author.login == "ada"'), context))
    })
  )

  it.effect("reads whole JSON numbers as CEL ints", () =>
    Effect.gen(function* () {
      const context = { item: issue, repository: "acme/widgets" }
      assert.isTrue(yield* evaluateIf(loop("item.number + 1 == 8 && item.score > 2.0"), context))
    })
  )

  it.effect("fails with the Loop's name when the Item lacks a field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(evaluateIf(loop("item.milestone.title == 'v1'"), { item: issue, repository: "a/b" }))
      assert.strictEqual(error._tag, "IfEvaluationFailed")
      assert.strictEqual(error.loop, "fix")
      assert.include(error.message, "milestone")
    })
  )

  it.effect("fails when a dynamic result is not a boolean", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(evaluateIf(loop("item.state"), { item: issue, repository: "a/b" }))
      assert.include(error.reason, "not a boolean")
    })
  )
})
