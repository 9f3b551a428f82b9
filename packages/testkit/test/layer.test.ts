import { Context, Effect, Layer } from "effect"
import * as V from "vitest"
import { layer } from "../src/layer"

/** Each build of the layer is a new instance, numbered. */
class Instance extends Context.Tag("test/Instance")<Instance, { readonly n: number }>() {}
class Nested extends Context.Tag("test/Nested")<Nested, { readonly outer: number }>() {}

let built = 0
const instances = Layer.effect(Instance, Effect.sync(() => ({ n: ++built })))
const nested = Layer.effect(Nested, Effect.map(Instance, (i) => ({ outer: i.n })))

const seen: Array<number> = []
const vitestIt = { effect: (V.it as unknown as Record<string, unknown>)["effect"], layer: (V.it as unknown as Record<string, unknown>)["layer"] }

layer(instances)("the first top-level layer", (it) => {
  it.effect("is built once for its describe", () => Effect.map(Instance, (i) => void seen.push(i.n)))
  it.layer(nested)("a nested layer", (it) => {
    it.effect("shares the outer layer's instance", () =>
      Effect.gen(function*() {
        const outer = yield* Instance
        const inner = yield* Nested
        V.expect(inner.outer).toBe(outer.n)
        V.expect(outer.n).toBe(seen[0])
      }))
  })
})

layer(instances)("a second top-level layer in the same file", (it) => {
  it.effect("gets its own instance, not the first one's", () =>
    Effect.map(Instance, (i) => {
      seen.push(i.n)
      V.expect(seen).toHaveLength(2)
      V.expect(seen[1]).not.toBe(seen[0])
    }))
  it("plain tests still run in a layer's body", () => V.expect(built).toBe(2))
})

V.describe("vitest's shared it", () => {
  V.it("is never assigned to by a layer, so the next file's layers start afresh under --no-isolate", () => {
    V.expect((V.it as unknown as Record<string, unknown>)["effect"]).toBe(vitestIt.effect)
    V.expect((V.it as unknown as Record<string, unknown>)["layer"]).toBe(vitestIt.layer)
  })
})
