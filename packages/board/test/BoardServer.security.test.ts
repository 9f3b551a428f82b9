import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { BoardClient, send } from "./support/BoardClient"
import { boardLayer, runOf, startBoard, submission, untilState } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)

describe("Board security", () => {
  it.scoped("answers its own Host names and refuses any other (DNS rebinding), on every route", () =>
    Effect.gen(function* () {
      const { server } = yield* startBoard()
      for (const host of [`127.0.0.1:${server.port}`, `localhost:${server.port}`]) {
        const ok = yield* promise(() => send(server.port, "/", { headers: { host } }))
        assert.strictEqual(ok.status, 200, host)
      }
      for (const host of [`evil.example:${server.port}`, "127.0.0.1", `127.0.0.1:${server.port + 1}`]) {
        for (const path of ["/", "/api/runs", "/events", "/assets/board.js"]) {
          const refused = yield* promise(() => send(server.port, path, { headers: { host } }))
          assert.strictEqual(refused.status, 403, `${host}${path}`)
        }
      }
    }))

  it.scoped("refuses a cross-origin post, a post without Origin or Referer, and a missing or wrong CSRF token", () =>
    Effect.gen(function* () {
      const { engine, server, store } = yield* startBoard()
      const gated = submission({ number: 1, loop: "gated" })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      const browser = new BoardClient(server.port)
      const path = `/runs/${runOf(gated)}/approve`
      const attempts = [
        { origin: "http://evil.example" },
        { origin: `http://evil.example:${server.port}` },
        { origin: "null" },
        { origin: null },
        { csrf: null },
        { csrf: "0".repeat(64) }
      ] as const
      for (const options of attempts) {
        const refused = yield* promise(() => browser.post(path, {}, options))
        assert.strictEqual(refused.status, 403, JSON.stringify(options))
      }
      assert.strictEqual((yield* store.getRun(runOf(gated))).state._tag, "Waiting", "nothing was approved")
      const fromReferer = yield* promise(() =>
        browser.post(path, {}, { origin: null, referer: `${browser.origin}/runs/${runOf(gated)}` })
      )
      assert.strictEqual(fromReferer.status, 303, "a same-origin Referer stands in for a missing Origin")
      assert.strictEqual(fromReferer.headers.location, `/runs/${runOf(gated)}`)
      assert.notStrictEqual((yield* store.getRun(runOf(gated))).state._tag, "Waiting")

      const second = submission({ number: 9, loop: "gated" })
      yield* engine.submit(second)
      yield* untilState(store, runOf(second), "Waiting")
      const json = (csrf: string | undefined, body: Record<string, unknown>) =>
        send(server.port, `/runs/${runOf(second)}/cancel`, {
          method: "POST",
          headers: {
            host: browser.host, origin: browser.origin, cookie: `usine_csrf=${browser.cookies.get("usine_csrf")}`,
            "content-type": "application/json", accept: "application/json", "x-csrf-token": csrf
          },
          body: JSON.stringify(body)
        })
      assert.strictEqual((yield* promise(() => json(undefined, {}))).status, 403, "a JSON body needs the token too")
      const viaHeader = yield* promise(() => json(browser.cookies.get("usine_csrf"), { back: "/" }))
      assert.strictEqual(viaHeader.status, 200)
      assert.strictEqual(JSON.parse(viaHeader.body).state, "Canceled")
    }))

  it.scoped("sends headers that forbid framing, sniffing and foreign scripts, and an HttpOnly SameSite CSRF cookie", () =>
    Effect.gen(function* () {
      const { server } = yield* startBoard()
      const page = yield* promise(() => new BoardClient(server.port).get("/"))
      assert.match(String(page.headers["content-security-policy"]), /default-src 'self'/)
      assert.strictEqual(page.headers["x-frame-options"], "DENY")
      assert.strictEqual(page.headers["x-content-type-options"], "nosniff")
      const cookie = (page.headers["set-cookie"] ?? []).find((c) => c.startsWith("usine_csrf="))
      assert.match(String(cookie), /HttpOnly/)
      assert.match(String(cookie), /SameSite=Strict/)
      assert.match(page.body, /^<!DOCTYPE html>/)
    }))

  it.effect("refuses to start on a non-loopback address without a token", () =>
    Effect.gen(function* () {
      const error = yield* Effect.scoped(Layer.build(boardLayer({ settings: { listen: { host: "0.0.0.0", port: 0 } } }))).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "BoardTokenMissing")
      assert.match(error.message, /set board.token/)
    }))

  it.scoped("with a token (required whenever set): pages redirect to the login, the API answers 401, a bearer or the login cookie lets in", () =>
    Effect.gen(function* () {
      const token = "board-token-0123456789abcdef-0123456789"
      const { engine, server, store } = yield* startBoard({
        settings: { token: Option.some(Redacted.make(token)) }
      })
      const stranger = new BoardClient(server.port)
      const page = yield* promise(() => stranger.get("/"))
      assert.strictEqual(page.status, 303)
      assert.strictEqual(page.headers.location, "/login")
      assert.strictEqual((yield* promise(() => stranger.get("/api/needs-you"))).status, 401)
      assert.strictEqual((yield* promise(() => stranger.get("/api/needs-you", { authorization: "Bearer wrong" }))).status, 401)
      assert.strictEqual((yield* promise(() => stranger.get("/api/needs-you", { authorization: `Bearer ${token}` }))).status, 200)

      const gated = submission({ number: 2, loop: "gated" })
      yield* engine.submit(gated)
      yield* untilState(store, runOf(gated), "Waiting")
      const script = yield* promise(() =>
        send(server.port, `/runs/${runOf(gated)}/approve`, {
          method: "POST",
          headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${token}`, accept: "application/json" }
        })
      )
      assert.strictEqual(script.status, 200, "a bearer request needs no Origin or CSRF token: no browser sends one")

      const wrong = yield* promise(() => stranger.post("/login", { token: "nope" }))
      assert.strictEqual(wrong.status, 401)
      const login = yield* promise(() => stranger.post("/login", { token }))
      assert.strictEqual(login.status, 303)
      const cookie = (login.headers["set-cookie"] ?? []).find((c) => c.startsWith("usine_session="))
      assert.match(String(cookie), /HttpOnly/)
      assert.notInclude(String(cookie), token, "the cookie holds a random session id, never the token")
      const home = yield* promise(() => stranger.get("/"))
      assert.strictEqual(home.status, 200)
      assert.notInclude(home.body, token)
      assert.notInclude((yield* promise(() => stranger.get("/login"))).body, token)
    }))
})
