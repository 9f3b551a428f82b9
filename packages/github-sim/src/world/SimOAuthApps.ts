import { createHash, randomBytes } from "node:crypto"
import type { SimUser } from "./SimUser"

/** A registered OAuth App: its credentials and the callback URL GitHub sends people back to. */
export interface SimOAuthApp {
  readonly clientId: string
  readonly clientSecret: string
  readonly name: string
  readonly callbackUrl: string
}

/** What an authorization granted, until its code is exchanged or expires. */
interface Grant {
  readonly clientId: string
  readonly user: SimUser
  /** The `redirect_uri` the authorization was asked with, if any: the exchange must repeat it. */
  readonly redirectUri: string | undefined
  readonly codeChallenge: string | undefined
  readonly scope: string
  readonly expiresAtMs: number
}

/** GitHub's error codes of the token exchange (its "troubleshooting OAuth App access token request errors"). */
export type ExchangeError = "incorrect_client_credentials" | "redirect_uri_mismatch" | "bad_verification_code"

export const EXCHANGE_ERRORS: Readonly<Record<ExchangeError, string>> = {
  incorrect_client_credentials: "The client_id and/or client_secret passed are incorrect.",
  redirect_uri_mismatch: "The redirect_uri MUST match the registered callback URL for this application.",
  bad_verification_code: "The code passed is incorrect or expired."
}

/** GitHub's life of an authorization code. */
const CODE_LIFETIME_MS = 10 * 60_000

/** PKCE's S256: the base64url SHA-256 of the verifier (RFC 7636 §4.2). */
const s256 = (verifier: string): string => createHash("sha256").update(verifier).digest("base64url")

/**
 * A redirect URI GitHub accepts for the App: the callback's scheme, host and port, and its path or a path below it
 * (GitHub's rule for OAuth Apps).
 */
export const redirectAllowed = (callbackUrl: string, redirectUri: string): boolean => {
  if (!URL.canParse(redirectUri)) return false
  const callback = new URL(callbackUrl)
  const asked = new URL(redirectUri)
  const base = callback.pathname.replace(/\/$/, "")
  return asked.origin === callback.origin && (asked.pathname === callback.pathname || asked.pathname.startsWith(`${base}/`))
}

/**
 * OAuth Apps, the codes their authorizations grant and the user tokens (`gho_…`) those codes are exchanged for. A
 * code works once, for its App, within ten minutes, with the verifier of its challenge.
 */
export class SimOAuthApps {
  readonly apps = new Map<string, SimOAuthApp>()
  private readonly grants = new Map<string, Grant>()
  /** Codes granted and tokens issued, for tests. */
  readonly counts = { granted: 0, exchanged: 0, refused: 0 }

  add(app: SimOAuthApp): void {
    this.apps.set(app.clientId, app)
  }

  /** Records an authorization and returns its code. */
  grant(grant: Omit<Grant, "expiresAtMs">, nowMs: number): string {
    const code = randomBytes(10).toString("hex")
    this.grants.set(code, { ...grant, expiresAtMs: nowMs + CODE_LIFETIME_MS })
    this.counts.granted += 1
    return code
  }

  /**
   * Exchanges a code: the App's credentials, the code (spent by any exchange that names its App, good or bad), the
   * same `redirect_uri` as the authorization, and the verifier of its challenge.
   */
  exchange(
    input: {
      readonly clientId: string
      readonly clientSecret: string
      readonly code: string
      readonly redirectUri: string | undefined
      readonly codeVerifier: string | undefined
    },
    nowMs: number
  ): { readonly _tag: "Granted"; readonly user: SimUser; readonly scope: string } | { readonly _tag: "Refused"; readonly error: ExchangeError } {
    const refuse = (error: ExchangeError) => {
      this.counts.refused += 1
      return { _tag: "Refused", error } as const
    }
    const app = this.apps.get(input.clientId)
    if (app === undefined || app.clientSecret !== input.clientSecret) return refuse("incorrect_client_credentials")
    const grant = this.grants.get(input.code)
    if (grant === undefined || grant.clientId !== app.clientId) return refuse("bad_verification_code")
    this.grants.delete(input.code)
    if (grant.expiresAtMs <= nowMs) return refuse("bad_verification_code")
    if (input.redirectUri !== undefined && input.redirectUri !== (grant.redirectUri ?? app.callbackUrl)) return refuse("redirect_uri_mismatch")
    if (grant.codeChallenge !== undefined && (input.codeVerifier === undefined || s256(input.codeVerifier) !== grant.codeChallenge)) {
      return refuse("bad_verification_code")
    }
    this.counts.exchanged += 1
    return { _tag: "Granted", user: grant.user, scope: grant.scope }
  }
}
