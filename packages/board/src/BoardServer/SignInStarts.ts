import { createHash, randomBytes } from "node:crypto"

/** A sign-in begun: the `state` GitHub must send back, and the PKCE challenge of a verifier kept here. */
export interface SignInStart {
  readonly state: string
  readonly codeChallenge: string
}

/** The Board's half of each sign-in in progress, in the daemon's memory: GitHub and the browser see neither secret. */
export interface SignInStarts {
  /** Begins a sign-in: a random `state` and PKCE verifier (32 bytes each); the verifier never leaves the daemon. */
  readonly begin: () => SignInStart
  /** The verifier of a sign-in begun within ten minutes with this `state`, once: a second call finds nothing. */
  readonly take: (state: string) => string | undefined
}

/** GitHub's own life of an authorization code: a sign-in left longer is begun again. */
const START_LIFETIME_MS = 10 * 60_000
/** Beyond this many sign-ins in progress the oldest is dropped, so a flood of starts cannot grow the daemon. */
const MAX_STARTS = 1_000

/** Sign-ins in progress on `now` (the Clock's milliseconds). */
export const makeSignInStarts = (now: () => number): SignInStarts => {
  const starts = new Map<string, { readonly verifier: string; readonly at: number }>()
  const prune = (at: number) => {
    for (const [state, start] of starts) if (at - start.at >= START_LIFETIME_MS) starts.delete(state)
    for (const state of starts.keys()) {
      if (starts.size < MAX_STARTS) break
      starts.delete(state)
    }
  }
  return {
    begin: () => {
      const at = now()
      prune(at)
      const state = randomBytes(32).toString("base64url")
      const verifier = randomBytes(32).toString("base64url")
      starts.set(state, { verifier, at })
      return { state, codeChallenge: createHash("sha256").update(verifier).digest("base64url") }
    },
    take: (state) => {
      const start = starts.get(state)
      starts.delete(state)
      return start === undefined || now() - start.at >= START_LIFETIME_MS ? undefined : start.verifier
    }
  }
}
