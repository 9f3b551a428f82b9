import { Command, Options } from "@effect/cli"
import { dirname, join } from "node:path"
import { Effect } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { planStartup } from "../daemon/StartupPlan"
import { serveDaemon } from "../daemon/serveDaemon"
import { startupFailed } from "../daemon/startupFailed"
import { WorkerExecutorLayer } from "../layers/WorkerExecutorLayer"
import { LoggingLayer } from "../layers/LoggingLayer"

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
export const up = Command.make("up", { config: configOption, jsonLogs: jsonLogsOption }, ({ config, jsonLogs }) =>
  Effect.gen(function* () {
    const plan = yield* planStartup(config)
    const redactor = makeRedactor(plan.secrets)
    yield* serveDaemon({ plan, executor: WorkerExecutorLayer(plan) }).pipe(
      Effect.provide(
        LoggingLayer({ json: jsonLogs, stdout: "all", folder: join(dirname(plan.ledgerFile), "logs"), redact: redactor.redact })
      )
    )
  }).pipe(Effect.catchAll(startupFailed("up")))
).pipe(Command.withDescription("Run the daemon: poll GitHub, run agents, serve the board."))
