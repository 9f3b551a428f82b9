import { getConnInfo } from "@hono/node-server/conninfo"
import { Duration, Option, type Redacted } from "effect"
import type { Context } from "hono"
import { deleteCookie, setCookie } from "hono/cookie"
import type { LoginSessions, SessionPolicy } from "./LoginSessions"
import type { LoginThrottle } from "./LoginThrottle"
import type { SignInSettings } from "./SignInSettings"

export const SESSION_COOKIE = "usine_session"

/** Who may use the Board and how its cookies are set. */
export interface BoardAuth {
  /** Required on every request when set (loopback included); none: every request passes. */
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** `board.auth: github`: people sign in with GitHub; absent, the token alone guards the Board. */
  readonly signIn: SignInSettings | undefined
  readonly sessions: LoginSessions
  readonly policy: SessionPolicy
  readonly throttle: LoginThrottle
  /**
   * `board.host_name`'s host (lower case) when it is an https URL: a request for that name came through TLS, whatever
   * the daemon itself sees. The listen address stays usable over plain http.
   */
  readonly httpsHost: string | undefined
  /** `board.trust_proxy`: a reverse proxy's `X-Forwarded-Proto` and `X-Forwarded-For` are believed. */
  readonly trustProxy: boolean
}

const lastForwarded = (c: Context, header: string): string | undefined =>
  c.req.header(header)?.split(",").map((part) => part.trim()).filter((part) => part !== "").at(-1)

/** Whether every request must prove who sends it: a token is configured, or people sign in with GitHub. */
export const guarded = (auth: BoardAuth): boolean => Option.isSome(auth.token) || auth.signIn !== undefined

/** The browser reached this request over https, so cookies must say `Secure`. */
export const overHttps = (auth: BoardAuth, c: Context): boolean =>
  (auth.httpsHost !== undefined && c.req.header("host")?.toLowerCase() === auth.httpsHost) ||
  (auth.trustProxy && lastForwarded(c, "x-forwarded-proto")?.toLowerCase() === "https")

/**
 * The client's address for the login throttle: the socket's peer, or, behind a trusted proxy, the last
 * `X-Forwarded-For` entry (the one the proxy itself appended; earlier ones are the client's word).
 */
export const clientOf = (auth: BoardAuth, c: Context): string => {
  const forwarded = auth.trustProxy ? lastForwarded(c, "x-forwarded-for") : undefined
  if (forwarded !== undefined) return forwarded
  try {
    return getConnInfo(c).remote.address ?? "unknown"
  } catch {
    return "unknown"
  }
}

export const setSessionCookie = (auth: BoardAuth, c: Context, id: string) =>
  setCookie(c, SESSION_COOKIE, id, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/",
    secure: overHttps(auth, c),
    maxAge: Math.floor(Duration.toSeconds(auth.policy.lifetime))
  })

export const clearSessionCookie = (auth: BoardAuth, c: Context) =>
  deleteCookie(c, SESSION_COOKIE, { httpOnly: true, sameSite: "Strict", path: "/", secure: overHttps(auth, c) })
