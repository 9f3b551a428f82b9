import { Effect, Option, type Redacted } from "effect"
import type { BoardRoute } from "@usine/board/BoardRoutes"
import { GitHubWebhooks, MAX_DELIVERY_BYTES } from "@usine/triggers/GitHubWebhooks"

const answer = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

/** The body as text, or None once it passes `limit` bytes (read no further). */
const cappedText = (request: Request, limit: number) =>
  Effect.promise(async () => {
    if (request.body === null) return Option.some("")
    const reader = request.body.getReader()
    const chunks: Array<Uint8Array> = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.byteLength
      if (size > limit) {
        await reader.cancel()
        return Option.none<string>()
      }
      chunks.push(value)
    }
    return Option.some(Buffer.concat(chunks).toString("utf8"))
  })

/**
 * `POST /webhooks/github`: no Board token or CSRF token, but a valid `X-Hub-Signature-256`, else 401; a signed
 * delivery answers 202 with the Hints it gave (ADR 0059).
 */
export const webhookRoute = (secret: Redacted.Redacted<string>) =>
  Effect.map(GitHubWebhooks, (webhooks): BoardRoute => ({
    method: "POST",
    path: "/webhooks/github",
    access: "signed",
    handle: (request) =>
      Effect.gen(function* () {
        const body = yield* cappedText(request, MAX_DELIVERY_BYTES)
        if (Option.isNone(body)) return answer(413, { error: "PayloadTooLarge", message: "a delivery is at most 25 MB" })
        const header = (name: string) => request.headers.get(name) ?? undefined
        return yield* webhooks
          .receive(secret, {
            event: header("x-github-event"),
            delivery: header("x-github-delivery"),
            signature: header("x-hub-signature-256"),
            body: body.value
          })
          .pipe(
            Effect.map((targets) => answer(202, { hints: targets.length })),
            Effect.catchTag("WebhookSignatureInvalid", (refused) =>
              Effect.as(Effect.logWarning(refused.message), answer(401, { error: "Unauthorized", message: refused.message }))
            )
          )
      })
  }))
