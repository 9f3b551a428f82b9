import { verify } from "@octokit/webhooks-methods"
import { Data, Effect, Redacted } from "effect"
import { LabelSync } from "./LabelSync"
import { PollingTriggers } from "./PollingTriggers"
import { TriggerConfig } from "./TriggerConfig"

/** GitHub caps a delivery at 25 MB; a larger body is not GitHub's. */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024

/** A delivery whose `X-Hub-Signature-256` is missing or is not the HMAC of its body under the webhook secret. */
class WebhookSignatureInvalid extends Data.TaggedError("WebhookSignatureInvalid")<{
  readonly delivery: string | undefined
  readonly why: "missing" | "wrong"
}> {
  override get message() {
    return `webhook delivery ${this.delivery ?? "(no id)"} refused: ${this.why} X-Hub-Signature-256`
  }
}

/** What one delivery names: an Item to read again, or a repository's label catalog. */
export type WebhookTarget =
  | { readonly _tag: "Item"; readonly repository: string; readonly number: number }
  | { readonly _tag: "LabelCatalog"; readonly repository: string }

type Json = Record<string, unknown>
const objectAt = (value: unknown, key: string): Json | undefined => {
  const inner = typeof value === "object" && value !== null ? (value as Json)[key] : undefined
  return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Json) : undefined
}
const numberOf = (value: Json | undefined): ReadonlyArray<number> =>
  typeof value?.number === "number" && Number.isSafeInteger(value.number) && value.number > 0 ? [value.number] : []
const pullRequestsOf = (suite: Json | undefined): ReadonlyArray<number> =>
  Array.isArray(suite?.pull_requests) ? suite.pull_requests.flatMap((pr: unknown) => numberOf(pr as Json)) : []

type Numbers = (payload: unknown) => ReadonlyArray<number>
const itemAt = (key: string): Numbers => (payload) => numberOf(objectAt(payload, key))
const suiteAt = (key: string): Numbers => (payload) => pullRequestsOf(objectAt(payload, key))

/** Where each hinted event names its Items; `label` names the catalog. Any other event (`ping`, `push`) names none. */
const ITEMS_OF: Readonly<Record<string, Numbers | "catalog">> = {
  issues: itemAt("issue"),
  issue_comment: itemAt("issue"),
  pull_request: itemAt("pull_request"),
  pull_request_review: itemAt("pull_request"),
  pull_request_review_comment: itemAt("pull_request"),
  check_run: suiteAt("check_run"),
  check_suite: suiteAt("check_suite"),
  label: "catalog"
}

/** The event names that become Hints. */
export const HINTED_EVENTS: ReadonlySet<string> = new Set(Object.keys(ITEMS_OF))

/**
 * The targets of a delivery, read from the few payload fields that name them; nothing else of the payload is
 * believed. Polling reads the Item itself: a payload's title, labels or state never reach a Loop.
 */
export const targetsOf = (event: string, payload: unknown): ReadonlyArray<WebhookTarget> => {
  const repository = objectAt(payload, "repository")?.full_name
  const items = Object.hasOwn(ITEMS_OF, event) ? ITEMS_OF[event] : undefined
  if (typeof repository !== "string" || items === undefined) return []
  if (items === "catalog") return [{ _tag: "LabelCatalog", repository }]
  return [...new Set(items(payload))].map((number) => ({ _tag: "Item", repository, number }))
}

/** One delivery as the Board's listener received it. */
interface WebhookDelivery {
  readonly event: string | undefined
  readonly delivery: string | undefined
  readonly signature: string | undefined
  readonly body: string
}

/**
 * GitHub's webhooks as Hints (ADR 0059): a signed delivery names Items to read again now, through the same path a
 * Board move takes, or a label catalog to read at the next cycle. Polling stays the source of truth: the cursor is
 * untouched, so a lost delivery changes nothing and a repeated one reads the Item once more.
 */
export class GitHubWebhooks extends Effect.Service<GitHubWebhooks>()("usine/GitHubWebhooks", {
  effect: Effect.gen(function* () {
    const triggers = yield* PollingTriggers
    const labels = yield* LabelSync
    const config = yield* TriggerConfig

    const registered = (repository: string) =>
      config.current().repositories.some((r) => r.toLowerCase() === repository.toLowerCase())

    /** Checks the signature in constant time, then offers the delivery's Hints; returns the targets it acted on. */
    const receive = Effect.fn("GitHubWebhooks.receive")(function* (secret: Redacted.Redacted<string>, input: WebhookDelivery) {
      const { delivery } = input
      if (input.signature === undefined || input.signature === "") {
        return yield* new WebhookSignatureInvalid({ delivery, why: "missing" })
      }
      const signature = input.signature
      const valid = input.body !== "" && (yield* Effect.promise(() =>
        verify(Redacted.value(secret), input.body, signature).catch(() => false)
      ))
      if (!valid) return yield* new WebhookSignatureInvalid({ delivery, why: "wrong" })
      const payload: unknown = yield* Effect.try(() => JSON.parse(input.body) as unknown).pipe(Effect.orElseSucceed(() => undefined))
      const targets = targetsOf(input.event ?? "", payload).filter((target) => registered(target.repository))
      for (const target of targets) {
        if (target._tag === "Item") yield* triggers.hint({ repository: target.repository, number: target.number })
        else yield* labels.recheck(target.repository)
      }
      yield* Effect.logDebug(`webhook ${input.event ?? "?"} ${delivery ?? ""}: ${targets.length} hint(s)`)
      return targets
    })

    return { receive }
  }),
  dependencies: [LabelSync.Default]
}) {}
