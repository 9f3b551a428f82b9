import { Effect, Layer, Option } from "effect"
import { BoardRoutes } from "@usine/board/BoardRoutes"
import { GitHubWebhooks } from "@usine/github/GitHubWebhooks"
import { ConfigState } from "../ConfigState"
import { webhookRoute } from "../daemon/webhookRoute"

/** What the Board's listener serves beside the Board: GitHub's webhooks when `github.webhook_secret` is set. */
export const BoardRoutesLayer = Layer.effect(
  BoardRoutes,
  Effect.gen(function* () {
    const config = yield* (yield* ConfigState).get
    const webhooks = yield* Option.match(config.github.webhookSecret, {
      onNone: () => Effect.succeed([]),
      onSome: (secret) => Effect.map(webhookRoute(secret), (route) => [route])
    })
    return [...webhooks]
  })
).pipe(Layer.provide(GitHubWebhooks.Default))
