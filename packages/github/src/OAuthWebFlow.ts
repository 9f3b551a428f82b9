import { Data, Effect, Redacted } from "effect"

/** The code exchange or `GET /user` failed: GitHub's error code, or why it could not be asked. */
class OAuthExchangeFailed extends Data.TaggedError("OAuthExchangeFailed")<{ readonly detail: string }> {
  override get message() {
    return `GitHub sign-in failed: ${this.detail}`
  }
}

interface OAuthApp {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** GitHub's web origin: where `/login/oauth/access_token` is. */
  readonly webUrl: string
  /** GitHub's REST root: where `/user` is. */
  readonly apiUrl: string
}

/** How long either request may take before the sign-in fails. */
const TIMEOUT_MS = 15_000

const fetchJson = (url: string, init: RequestInit) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(url, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)]) })
      const body: unknown = await response.json().catch(() => undefined)
      return { status: response.status, body: typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {} }
    },
    catch: (cause) => new OAuthExchangeFailed({ detail: `${new URL(url).pathname} unreachable: ${String(cause)}` })
  })

/**
 * The server side of GitHub's OAuth web flow (ADR 0096): the code and the PKCE verifier are exchanged for a user
 * token with the App's secret, and `GET /user` with that token names the person. The token is used once and dropped.
 */
export const makeOAuthWebFlow = (app: OAuthApp) => ({
  exchange: Effect.fn("OAuthWebFlow.exchange")(function* (input: {
    readonly code: string
    readonly codeVerifier: string
    readonly redirectUri: string
  }) {
    const token = yield* fetchJson(`${app.webUrl.replace(/\/$/, "")}/login/oauth/access_token`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        client_id: app.clientId,
        client_secret: Redacted.value(app.clientSecret),
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier
      })
    })
    const accessToken = token.body["access_token"]
    if (typeof accessToken !== "string") {
      const error = token.body["error"]
      return yield* new OAuthExchangeFailed({ detail: typeof error === "string" ? error : `access_token answered ${token.status}` })
    }
    const user = yield* fetchJson(`${app.apiUrl.replace(/\/$/, "")}/user`, {
      headers: { accept: "application/vnd.github+json", authorization: `Bearer ${accessToken}` }
    })
    const login = user.body["login"]
    if (user.status !== 200 || typeof login !== "string") {
      return yield* new OAuthExchangeFailed({ detail: `GET /user answered ${user.status}` })
    }
    return { login }
  })
})
