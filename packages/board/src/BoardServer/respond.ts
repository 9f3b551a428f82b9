import { Cause, Effect, Exit, Option } from "effect"
import type { Context } from "hono"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import type { BoardEnv } from "./BoardEnv"

/** The status each tagged error answers with; anything else is a 500. */
const STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  RunStateConflict: 409,
  StaleRunVersion: 409,
  AttemptNotOpen: 409,
  SessionGone: 409,
  RunNotFound: 404,
  ItemNotOnBoard: 404,
  LoopNotConfigured: 404,
  DailyCapNotSet: 409,
  CapRaiseTooLow: 400,
  InvalidInput: 400,
  UnknownColumn: 400,
  BoardMoveFailed: 502,
  RoleTooLow: 403,
  FourEyesRefused: 403,
  RoleUnknown: 502,
  LabellerUnknown: 502
}

interface Problem {
  readonly status: ContentfulStatusCode
  readonly body: { readonly error: string; readonly message: string } & Readonly<Record<string, unknown>>
}

/** A failure as the client sees it: its tag, its message, and its scalar fields (`state`, `field`, …). */
export const problemOf = (cause: Cause.Cause<unknown>, redact: (text: string) => string): Problem => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) {
    return { status: 500, body: { error: "InternalError", message: "the board failed; see the daemon log" } }
  }
  const error = failure.value as { readonly _tag?: unknown; readonly message?: unknown }
  const tag = typeof error._tag === "string" ? error._tag : "Error"
  const fields = Object.fromEntries(
    Object.entries(error).filter(([key, value]) =>
      key !== "_tag" && (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
    ).map(([key, value]) => [key, typeof value === "string" ? redact(value) : value])
  )
  return {
    status: STATUS[tag] ?? 500,
    body: { ...fields, error: tag, message: redact(typeof error.message === "string" ? error.message : tag) }
  }
}

/** JSON for scripts and the API; HTML and redirects for plain form posts. */
export const wantsJson = (c: Context<BoardEnv>): boolean =>
  c.req.path.startsWith("/api/") || (c.req.header("accept") ?? "").includes("application/json")

export type RunExit = <A, E>(effect: Effect.Effect<A, E>) => Promise<Exit.Exit<A, E>>

/** Logs what the operator cannot act on; a typed failure is an answer, not an incident. */
export const logUnexpected = (cause: Cause.Cause<unknown>) =>
  Option.isNone(Cause.failureOption(cause)) ? Effect.logError("board request failed", cause) : Effect.void
