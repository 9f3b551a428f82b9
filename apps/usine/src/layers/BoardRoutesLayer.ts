import { Effect, Layer, Option } from "effect"
import { BoardRoutes } from "@usine/board/BoardRoutes"
import { GitHubWebhooks } from "@usine/triggers/GitHubWebhooks"
import * as LedgerFigures from "@usine/store/LedgerFigures"
import { ConfigState } from "../ConfigState"
import { DaemonMetricsLayer } from "../daemon/DaemonMetrics"
import { DaemonWorkerStatusFeed } from "../daemon/DaemonWorkerStatusFeed"
import { metricsRoute } from "../daemon/metricsRoute"
import { webhookRoute } from "../daemon/webhookRoute"

/**
 * What the Board's listener serves beside the Board: `/metrics` behind the Board's token, and GitHub's webhooks when
 * `github.webhook_secret` is set.
 */
export const BoardRoutesLayer = Layer.effect(
  BoardRoutes,
  Effect.gen(function* () {
    const config = yield* (yield* ConfigState).get
    const webhooks = yield* Option.match(config.github.webhookSecret, {
      onNone: () => Effect.succeed([]),
      onSome: (secret) => Effect.map(webhookRoute(secret), (route) => [route])
    })
    return [yield* metricsRoute, ...webhooks]
  })
).pipe(Layer.provide(Layer.mergeAll(GitHubWebhooks.Default, DaemonMetricsLayer.pipe(Layer.provide(Layer.merge(LedgerFigures.layer, DaemonWorkerStatusFeed))))))
