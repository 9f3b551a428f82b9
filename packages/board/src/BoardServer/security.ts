import { createHash, timingSafeEqual, randomBytes } from "node:crypto"
import type { Context, MiddlewareHandler } from "hono"
import { getCookie, setCookie } from "hono/cookie"
import { Option, Redacted } from "effect"
import { type BoardAuth, clientOf, guarded, overHttps, SESSION_COOKIE } from "./BoardAuth"
import type { BoardEnv } from "./BoardEnv"

const CSRF_COOKIE = "usine_csrf"
export const CSRF_FIELD = "_csrf"
const CSRF_HEADER = "x-csrf-token"

const UNSAFE_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])
/** Reachable without logging in: the login form itself, the stylesheet and script it loads, and the empty icon. */
const PUBLIC_PATHS = (path: string) =>
  path === "/login" || path === "/favicon.ico" || path.startsWith("/assets/") || path === "/auth/github" || path === "/auth/github/callback"

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compares two secrets through their SHA-256 digests: equal-length buffers, so the time taken leaks no length. */
export const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b))

const forbidden = (c: Context, reason: string) => c.json({ error: "Forbidden", message: reason }, 403)

/** Refuses a request whose Host is not one the Board answers (DNS rebinding). */
export const hostGuard = (allowed: () => ReadonlySet<string>): MiddlewareHandler<BoardEnv> => async (c, next) => {
  const host = c.req.header("host")?.toLowerCase()
  if (host === undefined || !allowed().has(host)) return forbidden(c, "unknown host")
  await next()
}

/** Baseline headers: no framing, no sniffing, scripts and styles only from the Board itself. */
export const securityHeaders: MiddlewareHandler<BoardEnv> = async (c, next) => {
  await next()
  c.header("Content-Security-Policy", "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
  c.header("X-Frame-Options", "DENY")
  c.header("X-Content-Type-Options", "nosniff")
  c.header("Referrer-Policy", "same-origin")
  c.header("Cache-Control", "no-store")
}

/** Gives every browser a random CSRF token in an HttpOnly SameSite cookie; pages embed it in their forms. */
export const csrfCookie = (auth: BoardAuth): MiddlewareHandler<BoardEnv> => async (c, next) => {
  let token = getCookie(c, CSRF_COOKIE)
  if (token === undefined || !/^[0-9a-f]{64}$/.test(token)) {
    token = randomBytes(32).toString("hex")
    setCookie(c, CSRF_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/", secure: overHttps(auth, c) })
  }
  c.set("csrf", token)
  await next()
}

const wantsJson = (c: Context) =>
  c.req.path.startsWith("/api/") || c.req.path === "/events" || (c.req.header("accept") ?? "").includes("application/json")

/** 429 with `Retry-After`: the client sent too many wrong tokens lately. */
const tooManyTries = (c: Context, seconds: number) => {
  c.header("Retry-After", String(seconds))
  return c.json({ error: "TooManyRequests", message: `too many wrong tokens; try again in ${seconds} s` }, 429)
}

/**
 * With a token configured or sign-in with GitHub, every request but the login pages needs it: the token as
 * `Authorization: Bearer`, or a live session (from the token's login form, or a person's GitHub sign-in, which
 * names them in `person`). A wrong bearer counts against the client in the login throttle. Without either (loopback
 * only) every request passes.
 */
export const authGuard = (auth: BoardAuth): MiddlewareHandler<BoardEnv> => async (c, next) => {
  c.set("bearer", false)
  c.set("session", undefined)
  c.set("person", undefined)
  if (!guarded(auth)) return next()
  const header = c.req.header("authorization")
  if (header?.startsWith("Bearer ") === true && Option.isSome(auth.token)) {
    const client = clientOf(auth, c)
    const wait = auth.throttle.retryAfter(client)
    if (wait > 0) return tooManyTries(c, wait)
    if (sameSecret(header.slice(7), Redacted.value(auth.token.value))) {
      auth.throttle.pass(client)
      c.set("bearer", true)
      return next()
    }
    auth.throttle.fail(client)
  }
  const session = getCookie(c, SESSION_COOKIE)
  const holder = session === undefined ? undefined : auth.sessions.touch(session)
  if (session !== undefined && holder !== undefined) {
    c.set("session", session)
    c.set("person", holder.login)
    return next()
  }
  if (PUBLIC_PATHS(c.req.path)) return next()
  if (wantsJson(c)) return c.json({ error: "Unauthorized", message: "log in or send the board token" }, 401)
  return c.redirect("/login", 303)
}

const sameOrigin = (c: Context): boolean => {
  const host = c.req.header("host")?.toLowerCase()
  const source = c.req.header("origin") ?? c.req.header("referer")
  if (source === undefined || source === "null" || host === undefined) return false
  try {
    const url = new URL(source)
    return (url.protocol === "http:" || url.protocol === "https:") && url.host.toLowerCase() === host
  } catch {
    return false
  }
}

const submittedToken = async (c: Context): Promise<string | undefined> => {
  const header = c.req.header(CSRF_HEADER)
  if (header !== undefined) return header
  if ((c.req.header("content-type") ?? "").includes("application/json")) {
    const body: unknown = await c.req.json().catch(() => undefined)
    const value = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[CSRF_FIELD] : undefined
    return typeof value === "string" ? value : undefined
  }
  const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>)
  const value = form[CSRF_FIELD]
  return typeof value === "string" ? value : undefined
}

/**
 * A state-changing request needs a same-origin `Origin` (or `Referer` when a browser sends no Origin) and the CSRF
 * token of its cookie. A bearer-token request is exempt: a browser never attaches that header on its own.
 */
export const originAndCsrfGuard: MiddlewareHandler<BoardEnv> = async (c, next) => {
  if (!UNSAFE_METHODS.has(c.req.method) || c.get("bearer")) return next()
  if (!sameOrigin(c)) return forbidden(c, "cross-origin request refused")
  const submitted = await submittedToken(c)
  if (submitted === undefined || !sameSecret(submitted, c.get("csrf"))) return forbidden(c, "missing or wrong CSRF token")
  await next()
}
