import { Effect } from "effect"
import { Hono } from "hono"
import type { Option } from "effect"
import type { AuditTrail } from "../AuditTrail"
import type { BoardAccess } from "../BoardAccess"
import type { BoardActions } from "../BoardActions"
import type { GitHubSignIn } from "../GitHubSignIn"
import type { TeamMembers } from "../TeamMembers"
import type { BoardRoute } from "../BoardRoutes"
import type { BoardViews } from "../BoardViews"
import { actionRoutes } from "./actionRoutes"
import type { BoardAuth } from "./BoardAuth"
import type { BoardEnv } from "./BoardEnv"
import { type LiveDeps, liveRoutes } from "./liveRoutes"
import { loginRoutes } from "./loginRoutes"
import { signInRoutes } from "./signInRoutes"
import type { SignInStarts } from "./SignInStarts"
import { pageRoutes } from "./pageRoutes"
import type { RunExit } from "./respond"
import type { BoardLedger } from "../BoardLedger"
import { ledgerGuard } from "./ledgerGuard"
import { authGuard, csrfCookie, hostGuard, originAndCsrfGuard, securityHeaders } from "./security"

interface BoardAppDeps extends Pick<LiveDeps, "fork" | "interval"> {
  readonly views: BoardViews
  /** Absent on a standby's Board, which has no engine to act with: its guard refuses every action. */
  readonly actions: BoardActions | undefined
  readonly access: BoardAccess
  readonly audit: AuditTrail
  /** The daemon's half of sign-in with GitHub, when `board.auth.github` is set. */
  readonly signIn: Option.Option<GitHubSignIn["Type"]>
  /** Membership of the `org/team` entries of `board.allow`. */
  readonly teams: Option.Option<TeamMembers["Type"]>
  readonly starts: SignInStarts
  readonly run: RunExit
  readonly redact: (text: string) => string
  readonly auth: BoardAuth
  /** Read on every request: the port is known only once the server listens. */
  readonly allowedHosts: () => ReadonlySet<string>
  /** Webhooks and metrics, served beside the Board (`BoardRoutes`). */
  readonly routes?: ReadonlyArray<BoardRoute>
  /** The ledger the Board reads; a standby's Board is read-only and says who leads (ADR 0109). */
  readonly ledger?: Option.Option<BoardLedger["Type"]>
}

const mount = (app: Hono<BoardEnv>, route: BoardRoute, run: RunExit) =>
  app.on(route.method, route.path, async (c) => {
    const exit = await run(route.handle(c.req.raw))
    if (exit._tag === "Success") return exit.value
    throw new Error("board route failed", { cause: exit.cause })
  })

/** The Hono app: the guards in order (Host, CSRF cookie, login, Origin and CSRF token), then every route. */
export const makeBoardApp = (deps: BoardAppDeps): Hono<BoardEnv> => {
  const app = new Hono<BoardEnv>()
  const routes = deps.routes ?? []
  app.use(securityHeaders)
  for (const route of routes) if (route.access === "signed") mount(app, route, deps.run)
  for (const route of routes) {
    // Before the login guard: a machine gets 401 where a browser would be sent to the login form.
    if (route.access === "token") app.use(route.path, async (c, next) => {
      await next()
      if (c.res.status === 303 && c.res.headers.get("location") === "/login") {
        c.res = c.json({ error: "Unauthorized", message: "send the board token" }, 401)
      }
    })
  }
  app.use(hostGuard(deps.allowedHosts))
  app.use(csrfCookie(deps.auth))
  app.use(authGuard(deps.auth))
  app.use(originAndCsrfGuard)
  if (deps.ledger !== undefined && deps.ledger._tag === "Some") {
    app.use(ledgerGuard(deps.ledger.value, deps.run))
    app.get("/api/ledger", (c) => c.json(c.get("ledger") ?? {}))
  }
  for (const route of routes) if (route.access === "token") mount(app, route, deps.run)
  loginRoutes(app, deps.auth, deps.run)
  signInRoutes(app, { auth: deps.auth, starts: deps.starts, run: deps.run, access: deps.access, exchange: deps.signIn, teams: deps.teams })
  pageRoutes(app, deps)
  if (deps.actions !== undefined) actionRoutes(app, { ...deps, actions: deps.actions })
  liveRoutes(app, deps)
  app.notFound((c) => c.json({ error: "NotFound", message: `nothing at ${c.req.path}` }, 404))
  app.onError(async (error, c) => {
    await deps.run(Effect.logError("board request failed", error))
    return c.json({ error: "InternalError", message: "the board failed; see the daemon log" }, 500)
  })
  return app
}
