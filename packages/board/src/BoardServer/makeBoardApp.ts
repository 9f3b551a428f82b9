import { Effect } from "effect"
import { Hono } from "hono"
import type { BoardActions } from "../BoardActions"
import type { BoardViews } from "../BoardViews"
import { actionRoutes } from "./actionRoutes"
import type { BoardAuth } from "./BoardAuth"
import type { BoardEnv } from "./BoardEnv"
import { type LiveDeps, liveRoutes } from "./liveRoutes"
import { loginRoutes } from "./loginRoutes"
import { pageRoutes } from "./pageRoutes"
import type { RunExit } from "./respond"
import { authGuard, csrfCookie, hostGuard, originAndCsrfGuard, securityHeaders } from "./security"

export interface BoardAppDeps extends Pick<LiveDeps, "fork" | "interval"> {
  readonly views: BoardViews
  readonly actions: BoardActions
  readonly run: RunExit
  readonly redact: (text: string) => string
  readonly auth: BoardAuth
  /** Read on every request: the port is known only once the server listens. */
  readonly allowedHosts: () => ReadonlySet<string>
}

/** The Hono app: the guards in order (Host, CSRF cookie, login, Origin and CSRF token), then every route. */
export const makeBoardApp = (deps: BoardAppDeps): Hono<BoardEnv> => {
  const app = new Hono<BoardEnv>()
  app.use(securityHeaders)
  app.use(hostGuard(deps.allowedHosts))
  app.use(csrfCookie(deps.auth))
  app.use(authGuard(deps.auth))
  app.use(originAndCsrfGuard)
  loginRoutes(app, deps.auth, deps.run)
  pageRoutes(app, deps)
  actionRoutes(app, deps)
  liveRoutes(app, deps)
  app.notFound((c) => c.json({ error: "NotFound", message: `nothing at ${c.req.path}` }, 404))
  app.onError(async (error, c) => {
    await deps.run(Effect.logError("board request failed", error))
    return c.json({ error: "InternalError", message: "the board failed; see the daemon log" }, 500)
  })
  return app
}
