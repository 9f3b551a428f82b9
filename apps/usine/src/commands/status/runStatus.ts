import { Console, Effect, Option } from "effect"
import type { LedgerView } from "@usine/board/BoardLedger"
import type { RunsView } from "@usine/board/BoardViews"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { UsageView } from "@usine/board/BoardViews/usageView"
import type { WorkerStatus } from "@usine/board/WorkerStatusFeed"
import { startupFailed } from "../../daemon/startupFailed"
import { loadConfig } from "../../loadConfig"
import { boardUrlOf, daemonApi } from "../../status/DaemonApi"
import { formatStatus } from "../../status/formatStatus"

/** What `usine status` does once its options are parsed; loaded by the command only when it runs (ADR 0095). */
export const runStatus = ({ config }: { readonly config: string }) =>
  Effect.gen(function* () {
    const loaded = yield* loadConfig(config)
    const get = daemonApi(loaded)
    const [running, queued, pending, needsYou, workers, usage, ledger] = yield* Effect.all(
      [
        get<RunsView>("/api/runs?state=Running"),
        get<RunsView>("/api/runs?state=Queued"),
        get<RunsView>("/api/runs?state=Pending"),
        get<NeedsYouView>("/api/needs-you"),
        get<{ readonly workers: ReadonlyArray<WorkerStatus> }>("/api/workers"),
        get<UsageView>("/api/usage"),
        // A daemon older than ADR 0109's addendum does not answer it: the line is left out.
        Effect.option(get<LedgerView>("/api/ledger"))
      ],
      { concurrency: "unbounded" }
    )
    yield* Console.log(
      formatStatus({
        url: boardUrlOf(loaded),
        open: [...running.page.runs, ...queued.page.runs, ...pending.page.runs],
        needsYou,
        workers: workers.workers,
        usage,
        ledger: Option.getOrUndefined(ledger)
      })
    )
  }).pipe(Effect.catchAll(startupFailed("status")))
