import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CommandFailed } from "./CommandFailed"

const alreadyReported = (error: unknown) => error instanceof CommandFailed || ValidationError.isValidationError(error)

/**
 * Logs a failure the commands did not explain themselves. Commands print their own expected errors and fail
 * with `CommandFailed`, and the CLI prints its usage errors, so the runtime's own error report stays off.
 */
export const reportFailure = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tapErrorCause(self, (cause) =>
    Cause.isInterruptedOnly(cause) || Option.exists(Cause.failureOption(cause), alreadyReported)
      ? Effect.void
      : Effect.logError(cause)
  )
