import { Effect, Layer, Option } from "effect"
import { type PollFailureView, PollFailureFeed, type RateQuotaView } from "@usine/board/PollFailureFeed"
import { GitHubClient } from "@usine/github/GitHubClient"
import { PollFailures } from "@usine/triggers/PollFailures"
import { NotificationOutbox } from "@usine/store/NotificationOutbox"
import type { Quota } from "@usine/github/RateBudget"
import { ConfigState } from "../ConfigState"
import { FAILING_AFTER_TRIES } from "./notifications"

const quotaView = (resource: RateQuotaView["resource"], quota: Quota): ReadonlyArray<RateQuotaView> =>
  quota.limit === undefined || quota.remaining === undefined
    ? []
    : [{ resource, limit: quota.limit, remaining: quota.remaining, resetAt: quota.resetAt }]

/**
 * Needs you's polling section: a refused usine.yaml change first (it stays until a valid change replaces it), then a
 * notification endpoint that keeps failing, the recent poll and prompt failures; and the rate quotas GitHub last
 * reported.
 */
export const DaemonPollFailureFeed: Layer.Layer<
  PollFailureFeed,
  never,
  PollFailures | GitHubClient | ConfigState | NotificationOutbox
> =
  Layer.effect(
    PollFailureFeed,
    Effect.gen(function* () {
      const failures = yield* PollFailures
      const client = yield* GitHubClient
      const state = yield* ConfigState
      const outbox = yield* NotificationOutbox
      return {
        recent: Effect.gen(function* () {
          const rejection = yield* state.rejection
          const config: ReadonlyArray<PollFailureView> = Option.match(rejection, {
            onNone: () => [],
            onSome: (r) => [{
              at: r.at,
              repository: r.file,
              message: `${r.headline ?? "configuration change rejected; the previous configuration stays in force"}:\n${r.message}`
            }]
          })
          const notify: ReadonlyArray<PollFailureView> = (yield* outbox.failing(FAILING_AFTER_TRIES)).map((f) => ({
            at: f.since,
            repository: `notify ${f.endpoint}`,
            message: `notifications keep failing (${f.tries} tries): ${f.lastError}`
          }))
          return [...config, ...notify, ...(yield* failures.recent)]
        }),
        rateQuotas: Effect.map(client.budget, (budget) => [
          ...quotaView("core", budget.core),
          ...quotaView("graphql", budget.graphql)
        ])
      }
    })
  )
