import { Option, Schema } from "effect"
import { Secret } from "./ConfigScalars"

/** What a notification endpoint can be told. */
export const NOTIFY_EVENTS = ["approval_needed", "failed", "parked", "pull_request_opened", "cap_reached", "config_rejected"] as const
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number]

const EndpointUrl = Schema.String.pipe(
  Schema.filter((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), {
    message: () => "expected an http(s) URL"
  }),
  Schema.annotations({ description: "an http(s) URL" })
)

/**
 * One endpoint of `notify:`: a Slack incoming webhook, an ntfy topic URL, or a JSON webhook signed with `secret`
 * (`X-Usine-Signature-256`, HMAC-SHA256 of the body). Without `events`, it gets every event.
 */
export const NotifyEndpoint = Schema.Struct({
  type: Schema.Literal("slack", "ntfy", "webhook"),
  url: Schema.Redacted(EndpointUrl),
  events: Schema.optionalWith(Schema.Array(Schema.Literal(...NOTIFY_EVENTS)), { default: () => [...NOTIFY_EVENTS] }),
  secret: Schema.optionalWith(Secret, { default: () => Option.none() })
})
export type NotifyEndpoint = typeof NotifyEndpoint.Type
