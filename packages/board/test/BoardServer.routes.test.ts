import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import type { BoardRoute } from "@usine/board/BoardRoutes"
import { send } from "./support/BoardClient"
import { startBoard } from "./support/startBoard"

const TOKEN = "board-token-0123456789abcdef-0123456789"
const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

const routes: ReadonlyArray<BoardRoute> = [
  {
    method: "POST",
    path: "/hooks/signed",
    access: "signed",
    handle: (request) =>
      Effect.promise(async () => {
        const ok = request.headers.get("x-signature") === "good"
        return new Response(ok ? await request.text() : "no", { status: ok ? 202 : 401 })
      })
  },
  { method: "GET", path: "/machine", access: "token", handle: () => Effect.succeed(new Response("figures\n", { status: 200 })) }
]

describe("Board routes beside the Board", () => {
  it.scoped("a signed route answers without token, CSRF or known Host; a token route wants the token and says 401", () =>
    Effect.gen(function* () {
      const { server } = yield* startBoard({ settings: { token: Option.some(Redacted.make(TOKEN)) }, routes })
      const host = `127.0.0.1:${server.port}`
      for (const requestHost of [host, "tunnel.example.net"]) {
        const signed = yield* promise(() =>
          send(server.port, "/hooks/signed", { method: "POST", headers: { host: requestHost, "x-signature": "good" }, body: "hello" })
        )
        assert.strictEqual(signed.status, 202, requestHost)
        assert.strictEqual(signed.body, "hello", "the handler reads the raw body")
      }
      const unsigned = yield* promise(() => send(server.port, "/hooks/signed", { method: "POST", headers: { host }, body: "x" }))
      assert.strictEqual(unsigned.status, 401)

      const anonymous = yield* promise(() => send(server.port, "/machine", { headers: { host, accept: "text/plain" } }))
      assert.strictEqual(anonymous.status, 401, "no login redirect for a machine")
      const wrong = yield* promise(() => send(server.port, "/machine", { headers: { host, authorization: "Bearer nope" } }))
      assert.strictEqual(wrong.status, 401)
      const bearer = yield* promise(() => send(server.port, "/machine", { headers: { host, authorization: `Bearer ${TOKEN}` } }))
      assert.strictEqual(bearer.status, 200)
      assert.strictEqual(bearer.body, "figures\n")
      const otherHost = yield* promise(() =>
        send(server.port, "/machine", { headers: { host: "evil.example", authorization: `Bearer ${TOKEN}` } })
      )
      assert.strictEqual(otherHost.status, 403, "a token route keeps the Host check")
      const page = yield* promise(() => send(server.port, "/", { headers: { host } }))
      assert.strictEqual(page.status, 303, "the Board's own pages still redirect to the login")
    }))

  it.scoped("without routes, their paths are the Board's: a post meets the CSRF check, a get is not found", () =>
    Effect.gen(function* () {
      const { server } = yield* startBoard()
      const host = `127.0.0.1:${server.port}`
      const post = yield* promise(() => send(server.port, "/hooks/signed", { method: "POST", headers: { host, "x-signature": "good" }, body: "x" }))
      assert.strictEqual(post.status, 403)
      const get = yield* promise(() => send(server.port, "/machine", { headers: { host, accept: "application/json" } }))
      assert.strictEqual(get.status, 404)
    }))
})
