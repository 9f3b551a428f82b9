import { Context, Effect, Layer } from "effect"
import type { RecordedRequest } from "../../src/ModelSim/RecordedRequest"
import type { ModelScript } from "../../src/ModelScript"
import { startModelSim } from "../../src/startModelSim"

/** A scripted model server on 127.0.0.1 that agent CLIs use as their model provider. */
export class ModelSim extends Context.Tag("usine/ModelSim")<
  ModelSim,
  {
    /** Origin, `http://127.0.0.1:PORT`. */
    readonly url: string
    /** The provider base URL a CLI is configured with: `${url}/v1`. */
    readonly baseUrl: string
    /** Every request received so far, in arrival order. */
    readonly requests: () => Effect.Effect<ReadonlyArray<RecordedRequest>>
  }
>() {
  /** Serves `script` for the life of the layer's scope; closing the scope drops every connection. */
  static readonly layer = (script: ModelScript, options: { readonly port?: number } = {}) =>
    Layer.scoped(
      ModelSim,
      Effect.gen(function* () {
        const sim = yield* Effect.acquireRelease(
          Effect.promise(() => startModelSim(script, options)),
          (running) => Effect.promise(() => running.close())
        )
        return ModelSim.of({
          url: sim.url,
          baseUrl: sim.baseUrl,
          requests: Effect.fn("ModelSim.requests")(function* () {
            return [...sim.requests]
          })
        })
      })
    )
}
