import { Clock, Effect, Option, Ref } from "effect"

/** A minted installation token and when GitHub stops taking it. */
export interface MintedToken {
  readonly token: string
  readonly expiresAtMs: number
}

/** Refresh this long before `expires_at`: a token handed out is good for at least this long. */
export const REFRESH_MARGIN_MS = 5 * 60_000

/**
 * The current installation token, minted on first use and again once the Clock is within `marginMs` of its expiry
 * (auth-app's own cache does not look at `expires_at`, ADR 0070). Concurrent callers share one mint. Consumers call
 * `current` at each use; none keeps a copy. A margin beyond the token's whole life mints at each call.
 */
export const makeInstallationToken = <E, R>(mint: Effect.Effect<MintedToken, E, R>, marginMs: number = REFRESH_MARGIN_MS) =>
  Effect.gen(function* () {
    const held = yield* Ref.make(Option.none<MintedToken>())
    const lock = yield* Effect.makeSemaphore(1)
    const fresh = (now: number, held: Option.Option<MintedToken>) => Option.filter(held, (minted) => now < minted.expiresAtMs - marginMs)
    const current: Effect.Effect<string, E, R> = lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const kept = fresh(now, yield* Ref.get(held))
        if (Option.isSome(kept)) return kept.value.token
        const minted = yield* mint
        yield* Ref.set(held, Option.some(minted))
        return minted.token
      })
    )
    return { current }
  })
