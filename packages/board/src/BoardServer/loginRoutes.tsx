import { Effect, Option, Redacted } from "effect"
import type { Hono } from "hono"
import { setCookie } from "hono/cookie"
import type { BoardSettingsData } from "../BoardSettings"
import { boardCss } from "../pages/boardCss"
import { boardScript } from "../pages/boardScript"
import { LoginPage } from "../pages/LoginPage"
import type { BoardEnv } from "./BoardEnv"
import { LoginForm, parseInput } from "./inputs"
import { readBody } from "./actionRoutes"
import { renderPage } from "./renderPage"
import type { RunExit } from "./respond"
import { SESSION_COOKIE, sameSecret, sessionValue } from "./security"

/** The login form (only when a token is configured) and the two static assets. */
export const loginRoutes = (app: Hono<BoardEnv>, settings: Pick<BoardSettingsData, "token">, run: RunExit) => {
  app.get("/assets/board.css", (c) => c.body(boardCss, 200, { "Content-Type": "text/css; charset=utf-8" }))
  app.get("/assets/board.js", (c) => c.body(boardScript, 200, { "Content-Type": "text/javascript; charset=utf-8" }))

  app.get("/login", (c) =>
    Option.isNone(settings.token)
      ? c.redirect("/", 303)
      : renderPage(c, { title: "Log in", current: "" }, <LoginPage csrf={c.get("csrf")} />))

  app.post("/login", async (c) => {
    if (Option.isNone(settings.token)) return c.redirect("/", 303)
    const token = settings.token.value
    const exit = await run(parseInput(LoginForm, await readBody(c)).pipe(Effect.option))
    const given = exit._tag === "Success" ? Option.getOrUndefined(exit.value)?.token : undefined
    if (given === undefined || !sameSecret(given, Redacted.value(token))) {
      return renderPage(c, { title: "Log in", current: "" }, <LoginPage csrf={c.get("csrf")} error="Wrong token." />, 401)
    }
    setCookie(c, SESSION_COOKIE, sessionValue(token), { httpOnly: true, sameSite: "Strict", path: "/" })
    return c.redirect("/", 303)
  })
}
