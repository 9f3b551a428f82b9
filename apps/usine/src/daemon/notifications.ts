import { createHash, createHmac } from "node:crypto"
import { Clock, Duration, Effect, Option, Redacted } from "effect"
import type { NotifyEndpoint, NotifyEvent } from "@usine/core/config/NotifyConfig"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { type NewNotification, type NotifiableFact, NotificationOutbox, type PendingNotification } from "@usine/store/NotificationOutbox"
import { ConfigState } from "../ConfigState"

/** How often the notifier looks at the ledger and the outbox. */
const NOTIFY_INTERVAL = Duration.seconds(1)
/** A try not answered in this long failed. */
const SEND_TIMEOUT_MS = 10_000
/** Failed tries before an endpoint shows on Needs you. */
export const FAILING_AFTER_TRIES = 3

/** Waits before the next try: 1 s doubling, at most 5 minutes. */
export const notifyBackoffMs = (tries: number): number => Math.min(300_000, 1000 * 2 ** Math.min(tries, 10))

/** An endpoint's name in the outbox: its type and a digest of its URL, so reordering `notify:` renames nothing. */
export const endpointKeyOf = (endpoint: NotifyEndpoint): string =>
  `${endpoint.type}:${createHash("sha256").update(Redacted.value(endpoint.url)).digest("hex").slice(0, 12)}`

/** The Board's address for links: its public name, else its listen address. */
export const boardOrigin = (config: UsineConfig): string => {
  const name = config.board.hostName
  if (name !== undefined) return /^https?:\/\//i.test(name) ? name.replace(/\/+$/, "") : `http://${name}`
  const { host, port } = config.board.listen
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`
}

const HEADLINES: Record<NotifyEvent, string> = {
  approval_needed: "waits for your approval",
  failed: "failed",
  parked: "is parked: no progress",
  pull_request_opened: "opened a pull request",
  cap_reached: "is held: a daily cap is reached",
  config_rejected: "usine.yaml change rejected"
}

/** What every endpoint is told of a fact: one JSON body, rendered per endpoint type when sent. */
const bodyOf = (config: UsineConfig, fact: NotifiableFact) => {
  const item = fact.number === undefined ? fact.repository : `${fact.repository}#${fact.number}`
  return {
    event: fact.event,
    runId: fact.runId,
    loop: fact.loop,
    repository: fact.repository,
    number: fact.number,
    text: `${fact.loop} · ${item} ${HEADLINES[fact.event]}${fact.detail === "" ? "" : `: ${fact.detail}`}`,
    url: `${boardOrigin(config)}/runs/${fact.runId}`,
    at: fact.at
  }
}

/** The notifications each endpoint wants of a fact; one per Run and event. */
export const render = (config: UsineConfig) => (fact: NotifiableFact): ReadonlyArray<NewNotification> =>
  config.notify
    .filter((endpoint) => endpoint.events.includes(fact.event))
    .map((endpoint) => ({ endpoint: endpointKeyOf(endpoint), event: fact.event, subject: fact.runId, body: bodyOf(config, fact) }))

type Body = ReturnType<typeof bodyOf> | { readonly event: "config_rejected"; readonly text: string; readonly url: string; readonly at: number }

/** The request an endpoint gets: Slack's `text`, ntfy's plain message with a click link, or the signed JSON body. */
export const requestFor = (endpoint: NotifyEndpoint, body: Body): RequestInit => {
  const json = JSON.stringify(body)
  switch (endpoint.type) {
    case "slack":
      return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: `${body.text} <${body.url}>` }) }
    case "ntfy":
      return { method: "POST", headers: { title: `usine: ${body.event}`, click: body.url, tags: "usine" }, body: body.text }
    case "webhook": {
      const headers: Record<string, string> = { "content-type": "application/json", "x-usine-event": body.event }
      if (Option.isSome(endpoint.secret)) {
        headers["x-usine-signature-256"] = `sha256=${createHmac("sha256", Redacted.value(endpoint.secret.value)).update(json).digest("hex")}`
      }
      return { method: "POST", headers, body: json }
    }
  }
}

const send = (endpoint: NotifyEndpoint, pending: PendingNotification) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(Redacted.value(endpoint.url), { ...requestFor(endpoint, pending.body as Body), signal })
      await response.body?.cancel()
      if (!response.ok) throw new Error(`answered ${response.status}`)
    },
    catch: (error) => (error instanceof Error ? error.message : String(error))
  }).pipe(Effect.timeoutFail({ duration: SEND_TIMEOUT_MS, onTimeout: () => `no answer within ${SEND_TIMEOUT_MS} ms` }))

/**
 * The notifier (ADR 0061): each second it writes the notifications of what the ledger recorded since (and of a
 * refused usine.yaml change), then sends the due ones, one at a time; a failed one waits longer each time. It never
 * blocks the engine: it only reads the ledger the engine wrote.
 */
export const notifyLoop = Effect.gen(function* () {
  const outbox = yield* NotificationOutbox
  const state = yield* ConfigState
  const cycle = Effect.gen(function* () {
    const config = yield* state.get
    yield* outbox.advance(render(config))
    const rejection = yield* state.rejection
    if (Option.isSome(rejection)) {
      const r = rejection.value
      for (const endpoint of config.notify.filter((e) => e.events.includes("config_rejected"))) {
        yield* outbox.enqueue({
          endpoint: endpointKeyOf(endpoint),
          event: "config_rejected",
          subject: createHash("sha256").update(`${r.at}\n${r.message}`).digest("hex").slice(0, 16),
          body: { event: "config_rejected", text: `${HEADLINES.config_rejected}: ${r.message.split("\n")[0] ?? ""}`, url: boardOrigin(config), at: r.at }
        })
      }
    }
    const endpoints = new Map(config.notify.map((e) => [endpointKeyOf(e), e]))
    for (const pending of yield* outbox.due(yield* Clock.currentTimeMillis, 20)) {
      const endpoint = endpoints.get(pending.endpoint)
      if (endpoint === undefined) continue // removed from usine.yaml: kept until it is configured again
      const sent = yield* Effect.either(send(endpoint, pending))
      const now = yield* Clock.currentTimeMillis
      if (sent._tag === "Right") yield* outbox.delivered(pending.id, now)
      else {
        yield* outbox.failed(pending.id, sent.left, now + notifyBackoffMs(pending.tries))
        yield* Effect.logWarning(`notification ${pending.event} to ${pending.endpoint} failed (try ${pending.tries + 1}): ${sent.left}`)
      }
    }
  })
  return yield* Effect.forever(
    cycle.pipe(
      Effect.catchAllCause((cause) => Effect.logError("notifications failed; they are tried again", cause)),
      Effect.zipRight(Effect.sleep(NOTIFY_INTERVAL))
    )
  )
})
