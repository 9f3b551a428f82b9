import { Effect, Exit, Option } from "effect"
import type { Context, Hono } from "hono"
import { deleteCookie, getCookie, setCookie } from "hono/cookie"
import type { BoardAccess } from "../BoardAccess"
import type { GitHubSignIn } from "../GitHubSignIn"
import type { TeamMembers } from "../TeamMembers"
import { LoginPage } from "../pages/LoginPage"
import { type BoardAuth, overHttps, setSessionCookie } from "./BoardAuth"
import type { BoardEnv } from "./BoardEnv"
import { renderPage } from "./renderPage"
import { logUnexpected, type RunExit } from "./respond"
import { sameSecret } from "./security"
import type { SignInStarts } from "./SignInStarts"

/** Binds a sign-in to the browser that began it; Lax, since GitHub's redirect back is a cross-site navigation. */
const STATE_COOKIE = "usine_sign_in"
const STATE_PATH = "/auth/github"

interface SignInDeps {
  readonly auth: BoardAuth
  readonly starts: SignInStarts
  readonly run: RunExit
  readonly access: BoardAccess
  readonly exchange: Option.Option<GitHubSignIn["Type"]>
  /** Membership of the `org/team` entries of `board.allow`; absent, a team lets nobody in. */
  readonly teams: Option.Option<TeamMembers["Type"]>
}

const refused = (c: Context<BoardEnv>, error: string, status: 400 | 401 | 403 | 502) =>
  renderPage(c, { title: "Sign in", current: "" }, <LoginPage csrf={c.get("csrf")} github={true} error={error} />, status)

/**
 * Why `login` is not let in by `board.allow` (a login, or a team they are an active member of); undefined when they
 * are. A team GitHub cannot answer for lets nobody in, and the refusal says so.
 */
const allowRefusal = (teams: Option.Option<TeamMembers["Type"]>, allow: ReadonlyArray<string>, login: string) =>
  Effect.gen(function* () {
    if (allow.length === 0 || allow.includes(login.toLowerCase())) return undefined
    const unknown: Array<string> = []
    for (const team of allow.filter((entry) => entry.includes("/"))) {
      if (Option.isNone(teams)) break
      const member = yield* teams.value.isMember(team, login).pipe(
        Effect.catchTag("TeamUnknown", (error) => Effect.as(Effect.sync(() => unknown.push(error.message)), false))
      )
      if (member) return undefined
    }
    return [`@${login} is not in board.allow.`, ...unknown].join(" ")
  })

/** Why a person GitHub vouched for may still not sign in; undefined when they may. */
const refusalOf = (access: BoardAccess, teams: Option.Option<TeamMembers["Type"]>, allow: ReadonlyArray<string>, login: string) =>
  Effect.flatMap(allowRefusal(teams, allow, login), (refusal) =>
    refusal !== undefined
      ? Effect.succeed(refusal)
      : Effect.map(access.mayView(login), (may) => (may ? undefined : `@${login} has no access to the repositories of this Board.`)))

/**
 * Sign-in with GitHub (ADR 0098): `/auth/github` begins it (state and PKCE kept here, the state also in a cookie of
 * this browser) and sends the person to GitHub; the callback checks the state against that cookie and takes it once,
 * has the daemon exchange the code with the verifier, and opens a session carrying the login.
 */
export const signInRoutes = (app: Hono<BoardEnv>, deps: SignInDeps) => {
  const { auth, starts } = deps
  const signIn = auth.signIn
  if (signIn === undefined) return

  app.get("/auth/github", (c) => {
    const start = starts.begin()
    setCookie(c, STATE_COOKIE, start.state, { httpOnly: true, sameSite: "Lax", path: STATE_PATH, secure: overHttps(auth, c), maxAge: 600 })
    const authorize = new URL(`${signIn.webUrl.replace(/\/$/, "")}/login/oauth/authorize`)
    for (const [key, value] of Object.entries({
      client_id: signIn.clientId,
      redirect_uri: signIn.callbackUrl,
      state: start.state,
      scope: "read:user",
      code_challenge: start.codeChallenge,
      code_challenge_method: "S256",
      allow_signup: "false"
    })) authorize.searchParams.set(key, value)
    return c.redirect(authorize.toString(), 303)
  })

  app.get("/auth/github/callback", async (c) => {
    const bound = getCookie(c, STATE_COOKIE)
    deleteCookie(c, STATE_COOKIE, { httpOnly: true, sameSite: "Lax", path: STATE_PATH, secure: overHttps(auth, c) })
    const { code, error, state } = c.req.query()
    if (error !== undefined) return refused(c, `GitHub did not sign you in (${error}).`, 401)
    if (state === undefined || code === undefined || bound === undefined || !sameSecret(state, bound)) {
      return refused(c, "This sign-in was not begun in this browser. Sign in again.", 400)
    }
    const verifier = starts.take(state)
    if (verifier === undefined) return refused(c, "This sign-in expired or was already used. Sign in again.", 400)
    if (Option.isNone(deps.exchange)) return refused(c, "Sign-in with GitHub is not wired in this daemon.", 502)
    const exchange = deps.exchange.value
    const exit = await deps.run(
      Effect.gen(function* () {
        const { login } = yield* exchange.exchange({ code, codeVerifier: verifier, redirectUri: signIn.callbackUrl })
        return { login, refusal: yield* refusalOf(deps.access, deps.teams, signIn.allow, login) }
      }).pipe(Effect.tapErrorCause(logUnexpected))
    )
    if (Exit.isFailure(exit)) return refused(c, "GitHub did not confirm who you are. Sign in again.", 401)
    const { login, refusal } = exit.value
    if (refusal !== undefined) return refused(c, refusal, 403)
    const previous = c.get("session")
    if (previous !== undefined) auth.sessions.close(previous)
    setSessionCookie(auth, c, auth.sessions.open({ login }))
    // Not a redirect: after GitHub's cross-site redirect a browser would not send the SameSite=Strict session cookie
    // with the next hop; a navigation the page itself makes is same-site.
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=/">` +
        `<title>Signed in</title></head><body><p>Signed in as @${login.replace(/[^A-Za-z0-9-]/g, "")}. ` +
        `<a href="/" data-testid="signed-in">Continue to the Board</a></p></body></html>`
    )
  })
}
