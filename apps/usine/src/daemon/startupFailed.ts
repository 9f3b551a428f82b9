import { Console, Effect } from "effect"
import { CommandFailed } from "../CommandFailed"

/**
 * Prints why a command could not start, as one line per cause (a config file with several problems gives one line
 * each, as `usine check` does), and fails with `CommandFailed`, so the process exits 1 without a stack trace.
 */
export const startupFailed = (command: string) => (error: { readonly _tag?: string; readonly message: string }) => {
  const text = "_tag" in error && error._tag === "ConfigInvalid"
    ? error.message
    : `usine ${command}: ${error.message || error._tag || "failed"}`
  return Console.error(text).pipe(Effect.zipRight(Effect.fail(new CommandFailed({ command }))))
}
