import { randomBytes } from "node:crypto"
import type { Context, Hono } from "hono"
import { html } from "hono/html"
import { EXCHANGE_ERRORS, type ExchangeError, redirectAllowed, type SimOAuthApp } from "../world/SimOAuthApps"
import type { SimWorld } from "../world/SimWorld"
import type { ApiEnv } from "./route"

/** The authorization request's fields, carried from the chooser's page to its form post. */
const FIELDS = ["client_id", "redirect_uri", "state", "scope", "code_challenge", "code_challenge_method"] as const
type Authorization = Readonly<Record<(typeof FIELDS)[number], string | undefined>>

const DOCS = "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors"

const page = (c: Context<ApiEnv>, title: string, body: ReturnType<typeof html>, status: 200 | 400 | 404 = 200) =>
  c.html(html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`, status)

/** `url` with the query parameters added (a callback may carry its own query). */
const withQuery = (url: string, params: Readonly<Record<string, string | undefined>>) => {
  const target = new URL(url)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(key, value)
  return target.toString()
}

/** The fields of a form post, a JSON body or the query string (GitHub reads the exchange's parameters from any). */
const paramsOf = async (c: Context<ApiEnv>): Promise<Readonly<Record<string, string>>> => {
  const query = c.req.query()
  const type = c.req.header("content-type") ?? ""
  const body: Record<string, unknown> = type.includes("application/json")
    ? await c.req.json<Record<string, unknown>>().catch(() => ({}))
    : await c.req.parseBody().catch(() => ({}))
  const fields = Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === "string")
  return { ...query, ...Object.fromEntries(fields) }
}

/**
 * The App and where to send the person back, or the answer that refuses the request: an unknown client is a page
 * (GitHub's 404), a redirect_uri off the callback goes back to the callback with `redirect_uri_mismatch`, and PKCE
 * other than S256 is refused.
 */
const checked = (world: SimWorld, c: Context<ApiEnv>, asked: Authorization) => {
  const app = asked.client_id === undefined ? undefined : world.oauth.apps.get(asked.client_id)
  if (app === undefined) return { refusal: page(c, "Not Found", html`<h1>Not Found</h1><p>No OAuth App has this client_id.</p>`, 404) }
  if (asked.redirect_uri !== undefined && !redirectAllowed(app.callbackUrl, asked.redirect_uri)) {
    return {
      refusal: c.redirect(withQuery(app.callbackUrl, {
        error: "redirect_uri_mismatch",
        error_description: EXCHANGE_ERRORS.redirect_uri_mismatch,
        error_uri: `${DOCS}/#redirect-uri-mismatch`,
        state: asked.state
      }), 302)
    }
  }
  if (asked.code_challenge !== undefined && (asked.code_challenge_method ?? "S256") !== "S256") {
    return { refusal: page(c, "Bad request", html`<h1>Bad request</h1><p>code_challenge_method must be S256.</p>`, 400) }
  }
  return { app, redirect: asked.redirect_uri ?? app.callbackUrl }
}

const chooser = (world: SimWorld, app: SimOAuthApp, asked: Authorization) => {
  const people = [...world.users.values()].filter((user) => user.type === "User" && user.token !== "")
  const hidden = FIELDS.map((name) => asked[name] === undefined ? "" : html`<input type="hidden" name="${name}" value="${asked[name]}">`)
  return html`<h1>Authorize ${app.name}</h1>
<p>github-sim signs nobody in: choose the account ${app.name} will see.</p>
<form method="post" action="/login/oauth/authorize">${hidden}
${people.map((user) => html`<button type="submit" name="login" value="${user.login}">${user.login}</button>`)}
</form>`
}

/**
 * GitHub's OAuth web flow (the github.com side): the authorization page, here a chooser of the emulator's users, its
 * form post that grants a code and redirects with it and `state`, and the code's exchange for a user token. Installed
 * ahead of the token pipeline: none of them takes an API token.
 */
export const oauthRoutes = (api: Hono<ApiEnv>, world: SimWorld): void => {
  const authorization = (params: Readonly<Record<string, string>>): Authorization =>
    Object.fromEntries(FIELDS.map((name) => [name, params[name] === "" ? undefined : params[name]])) as Authorization

  api.get("/login/oauth/authorize", (c) => {
    const asked = authorization(c.req.query())
    const found = checked(world, c, asked)
    return "refusal" in found ? found.refusal : page(c, `Authorize ${found.app.name}`, chooser(world, found.app, asked))
  })

  api.post("/login/oauth/authorize", async (c) => {
    const params = await paramsOf(c)
    const asked = authorization(params)
    const found = checked(world, c, asked)
    if ("refusal" in found) return found.refusal
    const user = world.users.get((params["login"] ?? "").toLowerCase())
    if (user === undefined || user.type !== "User") return page(c, "Bad request", html`<h1>Bad request</h1><p>Choose an account.</p>`, 400)
    const code = world.oauth.grant({
      clientId: found.app.clientId,
      user,
      redirectUri: asked.redirect_uri,
      codeChallenge: asked.code_challenge,
      scope: asked.scope ?? ""
    }, world.now())
    return c.redirect(withQuery(found.redirect, { code, state: asked.state }), 302)
  })

  api.post("/login/oauth/access_token", async (c) => {
    const params = await paramsOf(c)
    const result = world.oauth.exchange({
      clientId: params["client_id"] ?? "",
      clientSecret: params["client_secret"] ?? "",
      code: params["code"] ?? "",
      redirectUri: params["redirect_uri"],
      codeVerifier: params["code_verifier"]
    }, world.now())
    const body = (fields: Readonly<Record<string, string>>) =>
      (c.req.header("accept") ?? "").includes("application/json")
        ? c.json(fields)
        : c.body(new URLSearchParams(fields).toString(), 200, { "content-type": "application/x-www-form-urlencoded; charset=utf-8" })
    if (result._tag === "Refused") return body(errorFields(result.error))
    const token = `gho_sim${randomBytes(18).toString("hex")}`
    world.tokens.set(token, result.user)
    return body({ access_token: token, token_type: "bearer", scope: result.scope })
  })
}

/** GitHub answers a refused exchange with 200 and these fields. */
const errorFields = (error: ExchangeError) => ({
  error,
  error_description: EXCHANGE_ERRORS[error],
  error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replaceAll("_", "-")}`
})
