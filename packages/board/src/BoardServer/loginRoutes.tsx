import { Effect, Option, Redacted } from "effect"
import type { Hono } from "hono"
import { boardCss } from "../pages/boardCss"
import { boardScript } from "../pages/boardScript"
import { LoginPage } from "../pages/LoginPage"
import { type BoardAuth, clearSessionCookie, clientOf, guarded, setSessionCookie } from "./BoardAuth"
import type { BoardEnv } from "./BoardEnv"
import { LoginForm } from "./inputs"
import { parseInput } from "./parseInput"
import { readBody } from "./actionRoutes"
import { renderPage } from "./renderPage"
import type { RunExit } from "./respond"
import { sameSecret } from "./security"

const loginFrame = { title: "Log in", current: "" } as const

/**
 * The login page and logout (only when the Board is guarded), the two static assets, and no icon. With sign-in with
 * GitHub the page links there and the token form is not offered: the token stays for scripts.
 */
export const loginRoutes = (app: Hono<BoardEnv>, auth: BoardAuth, run: RunExit) => {
  app.get("/assets/board.css", (c) => c.body(boardCss, 200, { "Content-Type": "text/css; charset=utf-8" }))
  app.get("/assets/board.js", (c) => c.body(boardScript, 200, { "Content-Type": "text/javascript; charset=utf-8" }))
  // Browsers ask for it on their own; a 404 would be a console error on the first page after a login.
  app.get("/favicon.ico", (c) => c.body(null, 204))

  const github = auth.signIn !== undefined
  app.get("/login", (c) =>
    !guarded(auth)
      ? c.redirect("/", 303)
      : renderPage(c, loginFrame, <LoginPage csrf={c.get("csrf")} github={github} />))

  app.post("/login", async (c) => {
    if (Option.isNone(auth.token) || github) return c.redirect(guarded(auth) ? "/login" : "/", 303)
    const client = clientOf(auth, c)
    const wait = auth.throttle.retryAfter(client)
    if (wait > 0) {
      c.header("Retry-After", String(wait))
      const error = `Too many wrong tokens. Try again in ${wait} s.`
      return renderPage(c, loginFrame, <LoginPage csrf={c.get("csrf")} github={false} error={error} />, 429)
    }
    const exit = await run(parseInput(LoginForm, await readBody(c)).pipe(Effect.option))
    const given = exit._tag === "Success" ? Option.getOrUndefined(exit.value)?.token : undefined
    if (given === undefined || !sameSecret(given, Redacted.value(auth.token.value))) {
      auth.throttle.fail(client)
      return renderPage(c, loginFrame, <LoginPage csrf={c.get("csrf")} github={false} error="Wrong token." />, 401)
    }
    auth.throttle.pass(client)
    const previous = c.get("session")
    if (previous !== undefined) auth.sessions.close(previous)
    setSessionCookie(auth, c, auth.sessions.open({ login: undefined }))
    return c.redirect("/", 303)
  })

  app.post("/logout", (c) => {
    const session = c.get("session")
    if (session !== undefined) auth.sessions.close(session)
    clearSessionCookie(auth, c)
    return c.redirect(guarded(auth) ? "/login" : "/", 303)
  })
}
