import { join } from "node:path"
import { Effect } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { planStartup } from "../../daemon/StartupPlan"
import { serveDaemon } from "../../daemon/serveDaemon"
import { startupFailed } from "../../daemon/startupFailed"
import { WorkerExecutorLayer } from "../../layers/WorkerExecutorLayer"
import { LoggingLayer } from "../../layers/LoggingLayer"

/** What `usine up` does once its options are parsed; loaded by the command only when it runs (ADR 0095). */
export const runUp = ({ config, jsonLogs }: { readonly config: string; readonly jsonLogs: boolean }) =>
  Effect.gen(function* () {
    const plan = yield* planStartup(config)
    const redactor = makeRedactor(plan.secrets)
    yield* serveDaemon({ plan, executor: WorkerExecutorLayer(plan) }).pipe(
      Effect.provide(
        LoggingLayer({ json: jsonLogs, stdout: "all", folder: join(plan.stateFolder, "logs"), redact: redactor.redact })
      )
    )
  }).pipe(Effect.catchAll(startupFailed("up")))
