import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { endpointKeyOf, notifyBackoffMs, render, requestFor } from "../src/daemon/notifications"

const config = Effect.runSync(parseConfig(`repositories: [acme/widgets]
board:
  host_name: https://usine.example.com
notify:
  - {type: slack, url: "https://hooks.slack.com/services/T0/B0/x", events: [approval_needed]}
  - {type: webhook, url: "https://example.com/hook", secret: sign-me}
  - {type: ntfy, url: "https://ntfy.sh/topic", events: [failed]}
loops: []
`, { env: {} }))

const fact = { event: "approval_needed", runId: "r1", loop: "fix", repository: "acme/widgets", number: 3, at: 1, detail: "" } as const

describe("notifications", () => {
  it("each endpoint gets the events it asked for, linked to the Run on the Board's public name", () => {
    const made = render(config)(fact)
    assert.deepStrictEqual(made.map((n) => n.endpoint.split(":")[0]), ["slack", "webhook"])
    assert.deepInclude(made[0]?.body as object, { url: "https://usine.example.com/runs/r1", text: "fix · acme/widgets#3 waits for your approval" })
    assert.deepStrictEqual(render(config)({ ...fact, event: "failed" }).map((n) => n.endpoint.split(":")[0]), ["webhook", "ntfy"])
  })

  it("Slack gets text with the link, ntfy a plain message, a webhook its JSON signed with HMAC-SHA256", () => {
    const [slack, webhook, ntfy] = config.notify
    const body = render(config)(fact)[0]!.body as Parameters<typeof requestFor>[1]
    assert.deepStrictEqual(JSON.parse(String(requestFor(slack!, body).body)), { text: `${body.text} <${body.url}>` })
    const signed = requestFor(webhook!, body)
    const headers = signed.headers as Record<string, string>
    assert.strictEqual(headers["x-usine-signature-256"], `sha256=${createHmac("sha256", "sign-me").update(String(signed.body)).digest("hex")}`)
    assert.strictEqual(headers["x-usine-event"], "approval_needed")
    assert.deepStrictEqual(JSON.parse(String(signed.body)), body)
    const plain = requestFor(ntfy!, body)
    assert.strictEqual(plain.body, body.text)
    assert.strictEqual((plain.headers as Record<string, string>)["click"], body.url)
    assert.isTrue(Option.isNone(slack!.secret))
  })

  it("endpoint names follow the URL, not the order; backoff doubles to five minutes", () => {
    const [slack] = config.notify
    assert.strictEqual(endpointKeyOf(slack!), endpointKeyOf({ ...slack!, events: [] }))
    assert.notStrictEqual(endpointKeyOf(slack!), endpointKeyOf({ ...slack!, url: Redacted.make("https://hooks.slack.com/other") }))
    assert.notInclude(endpointKeyOf(slack!), "hooks.slack.com")
    assert.deepStrictEqual([0, 1, 2, 3, 9, 20].map(notifyBackoffMs), [1000, 2000, 4000, 8000, 300_000, 300_000])
  })
})
