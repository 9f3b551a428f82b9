import { createPublicKey, verify } from "node:crypto"
import { Effect } from "effect"
import { Unauthorized } from "./ApiError"

/** GitHub's ceiling on an App JWT's life: `exp` at most 10 minutes after now. */
const MAX_JWT_LIFE_MS = 10 * 60_000

/** What GitHub checks in an App JWT before trusting it: RS256 signed by the App's key, `iss` the App, a short life. */
interface AppJwtCheck {
  readonly appId: number
  readonly publicKeyPem: string
  readonly nowMs: number
}

const decode = (part: string): unknown => JSON.parse(Buffer.from(part, "base64url").toString("utf8"))

/** The App id a JWT names in `iss`, or undefined when it is no JWT. */
export const jwtIssuer = (jwt: string): number | undefined => {
  const parts = jwt.split(".")
  if (parts.length !== 3) return undefined
  try {
    const claims = decode(parts[1]!) as { iss?: unknown }
    const iss = Number(claims.iss)
    return Number.isInteger(iss) ? iss : undefined
  } catch {
    return undefined
  }
}

/**
 * Verifies an App JWT as GitHub does: header `alg` RS256, signature by the App's private key, `iss` the App id,
 * `iat` not in the future (60 s of drift allowed), `exp` in the future and at most 10 minutes away.
 * Any failure is GitHub's 401 "Bad credentials"; `detail` says why (for the emulator's own tests).
 */
export const verifyAppJwt = (jwt: string, check: AppJwtCheck): Effect.Effect<void, Unauthorized & { readonly detail?: string }> => {
  const bad = (detail: string) => Effect.fail(Object.assign(new Unauthorized({ reason: "bad" }), { detail }))
  const parts = jwt.split(".")
  if (parts.length !== 3) return bad("not a JWT")
  const [header, payload, signature] = parts as [string, string, string]
  let head: { alg?: unknown }
  let claims: { iss?: unknown; iat?: unknown; exp?: unknown }
  try {
    head = decode(header) as typeof head
    claims = decode(payload) as typeof claims
  } catch {
    return bad("unreadable JWT")
  }
  if (head.alg !== "RS256") return bad(`alg ${String(head.alg)} is not RS256`)
  const signed = verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), createPublicKey(check.publicKeyPem), Buffer.from(signature, "base64url"))
  if (!signed) return bad("signature does not verify")
  if (Number(claims.iss) !== check.appId) return bad(`iss ${String(claims.iss)} is not app ${check.appId}`)
  const nowS = check.nowMs / 1000
  if (typeof claims.exp !== "number" || claims.exp <= nowS) return bad("expired")
  if (claims.exp * 1000 - check.nowMs > MAX_JWT_LIFE_MS) return bad("exp is too far in the future")
  if (typeof claims.iat !== "number" || claims.iat > nowS + 60) return bad("iat is in the future")
  return Effect.void
}
