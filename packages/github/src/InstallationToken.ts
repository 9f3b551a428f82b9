import { Clock, Effect, Option, Ref } from "effect"

/** A minted installation token and when GitHub stops taking it. */
export interface MintedToken {
  readonly token: string
  readonly expiresAtMs: number
}

/** Refresh this long before `expires_at`: a token handed out is good for at least this long. */
const REFRESH_MARGIN_MS = 5 * 60_000

interface Held extends MintedToken {
  /** The margin this token is refreshed at: `marginMs`, or half its life when that is shorter. */
  readonly marginMs: number
}

/**
 * The current installation token, minted on first use and again once the Clock is within `marginMs` of its expiry
 * (auth-app's own cache does not look at `expires_at`, ADR 0070). Concurrent callers share one mint. Consumers call
 * `current` at each use; none keeps a copy. A token whose whole life is under twice the margin (an emulator's
 * seconds-long tokens) is refreshed at half its life instead, so it is still reused and still never handed out stale.
 */
export const makeInstallationToken = <E, R>(mint: Effect.Effect<MintedToken, E, R>, marginMs: number = REFRESH_MARGIN_MS) =>
  Effect.gen(function* () {
    const held = yield* Ref.make(Option.none<Held>())
    const lock = yield* Effect.makeSemaphore(1)
    const fresh = (now: number, held: Option.Option<Held>) => Option.filter(held, (minted) => now < minted.expiresAtMs - minted.marginMs)
    const current: Effect.Effect<string, E, R> = lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const kept = fresh(now, yield* Ref.get(held))
        if (Option.isSome(kept)) return kept.value.token
        const minted = yield* mint
        const life = minted.expiresAtMs - (yield* Clock.currentTimeMillis)
        yield* Ref.set(held, Option.some({ ...minted, marginMs: Math.min(marginMs, life / 2) }))
        return minted.token
      })
    )
    return { current }
  })
