import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { compileLiquid } from "@usine/core/config/LiquidTemplate"
import { renderPrompt } from "@usine/core/config/renderPrompt"

const loop = (source: string) => ({ name: "fix", prompt: Either.getOrThrow(compileLiquid(source)) })
const refusal = (source: string) => Either.match(compileLiquid(source), { onLeft: (reason) => reason, onRight: () => "compiled" })

describe("renderPrompt", () => {
  it.effect("renders the Item and repository", () =>
    Effect.gen(function* () {
      const text = yield* renderPrompt(
        loop("Fix #{{ item.number }} in {{ repository }}: {{ item.title | upcase }}{% for l in item.labels %} [{{ l }}]{% endfor %}"),
        { item: { number: 4, title: "crash", labels: ["bug", "p1"] }, repository: "acme/widgets" }
      )
      assert.strictEqual(text, "Fix #4 in acme/widgets: CRASH [bug] [p1]")
    })
  )

  it.effect("fails on a variable the Item does not have, instead of printing nothing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(renderPrompt(loop("{{ item.body }}"), { item: { title: "t" }, repository: "a/b" }))
      assert.strictEqual(error._tag, "PromptRenderFailed")
      assert.include(error.message, "item.body")
    })
  )

  it("refuses, at compile time, unknown filters, unknown variables and tags that read files", () => {
    assert.include(refusal("{{ item.title | shout }}"), "undefined filter")
    assert.include(refusal("{{ env.SECRET }}"), "`env`")
    assert.include(refusal('{% include "x.liquid" %}'), "include")
    assert(Either.isRight(compileLiquid("{% assign t = item.title %}{{ t }}")))
  })
})
