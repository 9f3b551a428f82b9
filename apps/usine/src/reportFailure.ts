import { ValidationError } from "@effect/cli"
import { Cause, Effect, Option } from "effect"
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
