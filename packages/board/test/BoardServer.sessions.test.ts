import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted, TestClock } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { BoardSettings } from "@usine/board/BoardSettings"
import { BoardClient, send } from "./support/BoardClient"
import { startBoard } from "./support/startBoard"

const promise = <A>(f: () => Promise<A>) => Effect.promise(f)
const TOKEN = "board-token-0123456789abcdef-0123456789"
const withToken = (patch: Parameters<typeof startBoard>[0] = {}) =>
  startBoard({ ...patch, settings: { token: Option.some(Redacted.make(TOKEN)), ...patch.settings } })

const sessionCookie = (headers: { readonly "set-cookie"?: ReadonlyArray<string> | undefined }) =>
  (headers["set-cookie"] ?? []).find((line) => line.startsWith("usine_session="))

const logIn = (client: BoardClient) =>
  Effect.gen(function* () {
    const login = yield* promise(() => client.post("/login", { token: TOKEN }))
    assert.strictEqual(login.status, 303)
    return { id: client.cookies.get("usine_session") ?? "", cookie: sessionCookie(login.headers) ?? "" }
  })

describe("Board sessions", () => {
  it.scoped("a login opens a random session (HttpOnly, SameSite=Strict, not Secure over http) that pages recognize", () =>
    Effect.gen(function* () {
      const { server } = yield* withToken()
      const first = yield* logIn(new BoardClient(server.port))
      const second = yield* logIn(new BoardClient(server.port))
      assert.match(first.id, /^[A-Za-z0-9_-]{43}$/, "32 random bytes, base64url")
      assert.notStrictEqual(first.id, second.id, "every login gets its own id, not a digest of the token")
      assert.match(first.cookie, /HttpOnly/)
      assert.match(first.cookie, /SameSite=Strict/)
      assert.notMatch(first.cookie, /Secure/)
      const home = yield* promise(() => send(server.port, "/", { headers: { host: `127.0.0.1:${server.port}`, cookie: `usine_session=${first.id}` } }))
      assert.strictEqual(home.status, 200)
      assert.include(home.body, 'data-testid="logout"')
      const forged = yield* promise(() => send(server.port, "/", { headers: { host: `127.0.0.1:${server.port}`, cookie: "usine_session=forged" } }))
      assert.strictEqual(forged.status, 303)
    }))

  it.scoped("a session ends after its idle time without a request, and at its lifetime however busy", () =>
    Effect.gen(function* () {
      const { server } = yield* withToken({ settings: { session: { idle: Duration.minutes(2), lifetime: Duration.minutes(5) } } })
      const idle = new BoardClient(server.port)
      const { cookie } = yield* logIn(idle)
      assert.match(cookie, /Max-Age=300/, "the browser forgets it at the lifetime too")
      yield* TestClock.adjust(Duration.seconds(110))
      assert.strictEqual((yield* promise(() => idle.get("/"))).status, 200, "a request within the idle time keeps it open")
      yield* TestClock.adjust(Duration.seconds(110))
      assert.strictEqual((yield* promise(() => idle.get("/"))).status, 200, "the idle time started again")
      yield* TestClock.adjust(Duration.minutes(2))
      const expired = yield* promise(() => idle.get("/"))
      assert.strictEqual(expired.status, 303)
      assert.strictEqual(expired.headers.location, "/login")
      assert.strictEqual((yield* promise(() => idle.get("/api/needs-you"))).status, 401)

      const busy = new BoardClient(server.port)
      yield* logIn(busy)
      for (let second = 60; second < 300; second += 60) {
        yield* TestClock.adjust(Duration.minutes(1))
        assert.strictEqual((yield* promise(() => busy.get("/api/needs-you"))).status, 200, `${second} s after the login`)
      }
      yield* TestClock.adjust(Duration.minutes(1))
      assert.strictEqual((yield* promise(() => busy.get("/api/needs-you"))).status, 401, "at the lifetime")
    }))

  it.scoped("logout ends the session on the server: the old cookie no longer lets in; logout needs the CSRF token", () =>
    Effect.gen(function* () {
      const { server } = yield* withToken()
      const client = new BoardClient(server.port)
      const { id } = yield* logIn(client)
      const forged = yield* promise(() => client.post("/logout", {}, { csrf: null }))
      assert.strictEqual(forged.status, 403)
      assert.strictEqual((yield* promise(() => client.get("/"))).status, 200, "a forged logout changes nothing")
      const logout = yield* promise(() => client.post("/logout", {}))
      assert.strictEqual(logout.status, 303)
      assert.strictEqual(logout.headers.location, "/login")
      assert.match(sessionCookie(logout.headers) ?? "", /Max-Age=0/)
      const replayed = yield* promise(() =>
        send(server.port, "/api/needs-you", { headers: { host: `127.0.0.1:${server.port}`, cookie: `usine_session=${id}` } })
      )
      assert.strictEqual(replayed.status, 401)
    }))

  it.scoped("five wrong tokens a minute from one client, then 429 with Retry-After, for the form and the bearer alike", () =>
    Effect.gen(function* () {
      const { server } = yield* withToken()
      const attacker = new BoardClient(server.port)
      for (let i = 0; i < 5; i++) {
        assert.strictEqual((yield* promise(() => attacker.post("/login", { token: `wrong-${i}` }))).status, 401)
        yield* TestClock.adjust(Duration.seconds(1))
      }
      const throttled = yield* promise(() => attacker.post("/login", { token: TOKEN }))
      assert.strictEqual(throttled.status, 429, "even the right token waits")
      assert.strictEqual(throttled.headers["retry-after"], "55")
      assert.include(throttled.body, "Too many wrong tokens")
      const bearer = yield* promise(() => attacker.get("/api/needs-you", { authorization: `Bearer ${TOKEN}` }))
      assert.strictEqual(bearer.status, 429)

      yield* TestClock.adjust(Duration.seconds(56))
      assert.strictEqual((yield* promise(() => attacker.post("/login", { token: TOKEN }))).status, 303, "the window moved on")
      for (let i = 0; i < 5; i++) {
        yield* promise(() => attacker.get("/api/needs-you", { authorization: `Bearer wrong-${i}` }))
      }
      assert.strictEqual((yield* promise(() => attacker.post("/login", { token: TOKEN }))).status, 429, "wrong bearers count too")
    }))

  it.scoped("behind a trusted proxy the throttle counts the address the proxy saw, and cookies say Secure over https", () =>
    Effect.gen(function* () {
      const { server } = yield* withToken({ settings: { trustProxy: true } })
      const forwarded = (address: string) => ({ "x-forwarded-for": `10.0.0.9, ${address}`, "x-forwarded-proto": "https" })
      const attacker = new BoardClient(server.port)
      for (let i = 0; i < 5; i++) {
        yield* promise(() => attacker.post("/login", { token: "wrong" }, { headers: forwarded("192.0.2.1") }))
      }
      assert.strictEqual((yield* promise(() => attacker.post("/login", { token: TOKEN }, { headers: forwarded("192.0.2.1") }))).status, 429)
      const other = new BoardClient(server.port)
      const login = yield* promise(() => other.post("/login", { token: TOKEN }, { headers: forwarded("192.0.2.2") }))
      assert.strictEqual(login.status, 303, "another client is not held back")
      assert.match(sessionCookie(login.headers) ?? "", /Secure/)
    }))

  it.scoped("without trust_proxy a forwarded https says nothing; with an https host_name the cookies set for that name are Secure", () =>
    Effect.gen(function* () {
      const plain = yield* withToken()
      const spoofed = yield* promise(() =>
        new BoardClient(plain.server.port).post("/login", { token: TOKEN }, { headers: { "x-forwarded-proto": "https" } }))
      assert.notMatch(sessionCookie(spoofed.headers) ?? "", /Secure/)

      const tls = yield* withToken({ settings: { hostNames: ["usine.example.com"], httpsHost: "usine.example.com" } })
      const client = new BoardClient(tls.server.port, "usine.example.com")
      const page = yield* promise(() => client.get("/login"))
      assert.match((page.headers["set-cookie"] ?? []).find((line) => line.startsWith("usine_csrf=")) ?? "", /Secure/)
      const login = yield* promise(() => client.post("/login", { token: TOKEN }))
      assert.match(sessionCookie(login.headers) ?? "", /Secure/)
      const direct = yield* promise(() => new BoardClient(tls.server.port).post("/login", { token: TOKEN }))
      assert.strictEqual(direct.status, 303)
      assert.notMatch(sessionCookie(direct.headers) ?? "", /Secure/, "the listen address itself is plain http")
    }))

  it.effect("an https host_name is the name allowed as Host and the one whose cookies are Secure; the session keys reach the settings", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(
        `repositories: [acme/app]\nloops: []\nboard:\n  token: ${TOKEN}\n  host_name: https://Usine.Example.com\n  session_idle: 30m\n  trust_proxy: true\n`,
        { env: {} }
      )
      const settings = BoardSettings.fromConfig(config)
      assert.deepStrictEqual(settings.hostNames, ["usine.example.com"])
      assert.strictEqual(settings.httpsHost, "usine.example.com")
      assert.isTrue(Duration.equals(settings.session.idle, Duration.minutes(30)))
      assert.isTrue(Duration.equals(settings.session.lifetime, Duration.days(7)))
      assert.isTrue(settings.trustProxy)
      const bare = BoardSettings.fromConfig({ ...config, board: { ...config.board, hostName: "usine.example.com:8443" } })
      assert.deepStrictEqual(bare.hostNames, ["usine.example.com:8443"])
      assert.isUndefined(bare.httpsHost)
    }))
})
