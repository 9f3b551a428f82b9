import { createHash, randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { call, octokitFor } from "./octokitFor"

const CALLBACK = "http://127.0.0.1:8787/auth/github/callback"
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

const send = (url: string, init: RequestInit = {}) =>
  Effect.promise(() => fetch(url, { redirect: "manual", ...init }).then(async (r) => ({ status: r.status, location: r.headers.get("location"), text: await r.text(), type: r.headers.get("content-type") })))

/** The form fields of the chooser's page, as a browser would post them, with the account chosen. */
const chosen = (page: string, login: string) => {
  const fields = new URLSearchParams()
  for (const match of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(match[1] ?? "", (match[2] ?? "").replaceAll("&amp;", "&"))
  fields.set("login", login)
  return fields
}

const world = Effect.gen(function* () {
  const sim = yield* GitHubSim
  yield* sim.control.createRepository({ owner: "acme", name: "widgets" })
  const dana = yield* sim.control.createUser({ login: "dana" })
  yield* sim.control.createUser({ login: "tom" })
  const app = yield* sim.control.createOAuthApp({ callbackUrl: CALLBACK, name: "usine test" })
  const verifier = randomBytes(32).toString("base64url")
  const authorize = new URL(`${sim.url}/login/oauth/authorize`)
  for (const [key, value] of Object.entries({ client_id: app.clientId, redirect_uri: CALLBACK, state: "st4te", scope: "read:user", code_challenge: s256(verifier), code_challenge_method: "S256" })) {
    authorize.searchParams.set(key, value)
  }
  /** Chooses `login` on the authorization page; the code GitHub sends back with the state. */
  const codeFor = (login: string) =>
    Effect.gen(function* () {
      const page = yield* send(authorize.toString())
      assert.strictEqual(page.status, 200)
      const granted = yield* send(`${sim.url}/login/oauth/authorize`, { method: "POST", body: chosen(page.text, login) })
      assert.strictEqual(granted.status, 302)
      const back = new URL(granted.location ?? "")
      assert.strictEqual(`${back.origin}${back.pathname}`, CALLBACK)
      assert.strictEqual(back.searchParams.get("state"), "st4te")
      return back.searchParams.get("code") ?? ""
    })
  const exchange = (fields: Record<string, string>, accept = "application/json") =>
    send(`${sim.url}/login/oauth/access_token`, {
      method: "POST",
      headers: { accept, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: CALLBACK, code_verifier: verifier, ...fields })
    })
  return { sim, app, dana, verifier, authorize, codeFor, exchange }
})

describe("OAuth web flow", () => {
  it.live("the chooser lists the users; the chosen one's code exchanges once for a token that GET /user answers as them", () =>
    Effect.gen(function* () {
      const { authorize, codeFor, exchange, sim } = yield* world
      const page = yield* send(authorize.toString())
      assert.match(page.type ?? "", /text\/html/)
      assert.include(page.text, `value="dana"`)
      assert.include(page.text, `value="tom"`)
      assert.notInclude(page.text, `value="acme"`, "an account without a token is nobody to sign in as")

      const code = yield* codeFor("dana")
      const answer = yield* exchange({ code })
      const token = JSON.parse(answer.text) as { access_token: string; token_type: string; scope: string }
      assert.match(token.access_token, /^gho_/)
      assert.strictEqual(token.token_type, "bearer")
      assert.strictEqual(token.scope, "read:user")
      const me = yield* call(() => octokitFor(sim.url, token.access_token).rest.users.getAuthenticated())
      assert.strictEqual(me.data.login, "dana")

      const again = JSON.parse((yield* exchange({ code })).text) as { error: string }
      assert.strictEqual(again.error, "bad_verification_code", "a code works once")
    }).pipe(Effect.provide(GitHubSim.layer())))

  it.live("PKCE, the client secret, the redirect_uri and the code's ten minutes are each checked; without JSON the answer is form-encoded", () =>
    Effect.gen(function* () {
      const { codeFor, exchange, sim } = yield* world
      const errorOf = (fields: Record<string, string>) => Effect.map(exchange(fields), (r) => (JSON.parse(r.text) as { error?: string }).error)

      assert.strictEqual(yield* errorOf({ code: yield* codeFor("dana"), code_verifier: randomBytes(32).toString("base64url") }), "bad_verification_code")
      assert.strictEqual(yield* errorOf({ code: yield* codeFor("dana"), client_secret: "wrong" }), "incorrect_client_credentials")
      assert.strictEqual(yield* errorOf({ code: yield* codeFor("dana"), redirect_uri: "http://127.0.0.1:8787/auth/github/callback/other" }), "redirect_uri_mismatch")
      assert.strictEqual(yield* errorOf({ code: "never-granted" }), "bad_verification_code")
      const late = yield* codeFor("dana")
      yield* sim.control.advanceTime({ ms: 10 * 60_000 + 1 })
      assert.strictEqual(yield* errorOf({ code: late }), "bad_verification_code", "expired after ten minutes")

      const form = yield* exchange({ code: yield* codeFor("tom") }, "*/*")
      assert.match(form.type ?? "", /application\/x-www-form-urlencoded/)
      assert.match(new URLSearchParams(form.text).get("access_token") ?? "", /^gho_/)
    }).pipe(Effect.provide(GitHubSim.layer())))

  it.live("authorize: an unknown client is 404; a redirect_uri off the callback goes back to the callback with redirect_uri_mismatch; only S256", () =>
    Effect.gen(function* () {
      const { authorize } = yield* world
      const variant = (changes: Record<string, string>) => {
        const url = new URL(authorize)
        for (const [key, value] of Object.entries(changes)) url.searchParams.set(key, value)
        return send(url.toString())
      }
      assert.strictEqual((yield* variant({ client_id: "nobody" })).status, 404)
      const elsewhere = yield* variant({ redirect_uri: "http://evil.example/auth/github/callback" })
      assert.strictEqual(elsewhere.status, 302)
      const back = new URL(elsewhere.location ?? "")
      assert.strictEqual(`${back.origin}${back.pathname}`, CALLBACK)
      assert.strictEqual(back.searchParams.get("error"), "redirect_uri_mismatch")
      assert.strictEqual(back.searchParams.get("code"), null)
      assert.strictEqual((yield* variant({ code_challenge_method: "plain" })).status, 400)
      assert.strictEqual((yield* variant({ redirect_uri: `${CALLBACK}/deeper` })).status, 200, "a path below the callback is allowed")
    }).pipe(Effect.provide(GitHubSim.layer())))

  it.live("the collaborator permission endpoint names each built-in role", () =>
    Effect.gen(function* () {
      const { dana, sim } = yield* world
      yield* sim.control.setPermission({ login: "tom", repo: "acme/widgets", permission: "triage" })
      const octokit = octokitFor(sim.url, dana.token)
      const of = (username: string) =>
        Effect.map(call(() => octokit.rest.repos.getCollaboratorPermissionLevel({ owner: "acme", repo: "widgets", username })), (r) => [r.data.permission, r.data.role_name])
      assert.deepStrictEqual(yield* of("tom"), ["read", "triage"])
      assert.deepStrictEqual(yield* of("dana"), ["write", "write"])
      assert.deepStrictEqual(yield* of("acme"), ["admin", "admin"])
    }).pipe(Effect.provide(GitHubSim.layer())))
})
