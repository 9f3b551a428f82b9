import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"

export const configOption = Options.file("config").pipe(
  Options.withAlias("c"),
  Options.withDescription("the usine.yaml to run"),
  Options.withDefault("usine.yaml")
)

const jsonLogsOption = Options.boolean("json-logs").pipe(
  Options.withDescription("log JSON lines instead of logfmt (stdout and the log file)")
)

/**
 * `usine up`: checks the configuration, the token, GitHub and the Board's port (one line and exit 1 on the first
 * failure), opens the ledger, recovers workspaces, reconciles, starts triggers, Run fibers and the Board, and runs
 * until SIGINT or SIGTERM; it exits 0 once drained.
 */
export const up = Command.make("up", { config: configOption, jsonLogs: jsonLogsOption }, (options) =>
  Effect.flatMap(Effect.promise(() => import("./up/runUp")), ({ runUp }) => runUp(options))
).pipe(Command.withDescription("Run the daemon: poll GitHub, run agents, serve the board."))
