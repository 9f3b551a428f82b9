import { Context, type Effect, Layer } from "effect"

/**
 * A route another part of the daemon serves on the Board's listener (webhooks, metrics), given the raw request.
 * `signed` routes come before the Board's guards (no Host check, no login, no CSRF): the handler authenticates the
 * request itself, by a signature. `token` routes sit behind `board.token` like the API, and answer 401 rather than
 * the login redirect, since their clients are machines.
 */
export interface BoardRoute {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly access: "signed" | "token"
  readonly handle: (request: Request) => Effect.Effect<Response>
}

/** The extra routes; the Board serves none when this service is absent. */
export class BoardRoutes extends Context.Tag("usine/BoardRoutes")<BoardRoutes, ReadonlyArray<BoardRoute>>() {
  static readonly none = Layer.succeed(BoardRoutes, [])
}
