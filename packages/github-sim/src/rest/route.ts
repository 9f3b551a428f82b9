import { Cause, Effect, ParseResult, Schema } from "effect"
import type { Context } from "hono"
import { BadRequest, errorBody, NotFound, Unprocessable, type ApiError } from "../world/ApiError"
import type { SimUser } from "../world/SimUser"

/** Hono environment of the API: the authenticated user, and whether the request was charged. */
export type ApiEnv = { Variables: { user: SimUser; counted: boolean } }
export type ApiContext = Context<ApiEnv>

/** The HTTP edge: runs a route's effect, turning API errors into GitHub's error bodies and defects into 500. */
export const run = (c: ApiContext, effect: Effect.Effect<Response, ApiError>): Promise<Response> =>
  Effect.runPromise(
    effect.pipe(
      Effect.catchAll((error) => Effect.succeed(c.json(errorBody(error), error.status))),
      Effect.catchAllCause((cause) =>
        Effect.as(Effect.logError("github-sim route failed", Cause.pretty(cause)), c.json({ message: "Server Error" }, 500))
      )
    )
  )

/** The JSON body decoded with `schema`: unreadable JSON is a 400, a wrong shape a 422, as on GitHub. */
export const readBody = <A, I>(c: ApiContext, schema: Schema.Schema<A, I>): Effect.Effect<A, BadRequest | Unprocessable> =>
  Effect.tryPromise({
    try: async () => {
      const text = await c.req.text()
      return text.trim() === "" ? {} : (JSON.parse(text) as unknown)
    },
    catch: () => new BadRequest({ problem: "Problems parsing JSON" })
  }).pipe(
    Effect.flatMap((json) =>
      Schema.decodeUnknown(schema)(json).pipe(
        Effect.mapError(
          (error) =>
            new Unprocessable({
              errors: [],
              summary: `Invalid request.\n\n${ParseResult.TreeFormatter.formatErrorSync(error)}`
            })
        )
      )
    )
  )

/** A path parameter that must be a positive integer (an issue or pull number); anything else is a 404. */
export const numberParam = (c: ApiContext, name: string): Effect.Effect<number, NotFound> => {
  const value = Number(c.req.param(name))
  return Number.isInteger(value) && value > 0 ? Effect.succeed(value) : Effect.fail(new NotFound({ resource: c.req.path }))
}
