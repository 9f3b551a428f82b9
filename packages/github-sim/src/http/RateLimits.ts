import type { SimClock } from "../world/SimClock"
import type { SimUser } from "../world/SimUser"

/** A rate-limit resource the emulator accounts separately, as GitHub does. */
export type RateResource = "core" | "graphql"

/** One user's window on one resource. */
interface RateBucket {
  limit: number
  used: number
  /** End of the window, in epoch milliseconds. */
  resetAt: number
}

/** What the control API may set on a bucket. */
interface RateLimitOverride {
  readonly limit?: number
  readonly remaining?: number
  readonly resetAt?: number
}

const WINDOW_MS = 60 * 60 * 1000
const DEFAULT_LIMIT = 5000

/** Per-user hourly budgets on `core` and `graphql`, with GitHub's `x-ratelimit-*` headers. */
export class RateLimits {
  private readonly buckets = new Map<string, RateBucket>()

  constructor(private readonly clock: SimClock) {}

  /** The user's current window, rolled over once its reset time has passed. */
  bucket(user: SimUser, resource: RateResource): RateBucket {
    const key = `${user.id}:${resource}`
    const now = this.clock.now()
    const existing = this.buckets.get(key)
    if (existing !== undefined && existing.resetAt > now) return existing
    const fresh = { limit: existing?.limit ?? DEFAULT_LIMIT, used: 0, resetAt: now + WINDOW_MS }
    this.buckets.set(key, fresh)
    return fresh
  }

  exhausted(user: SimUser, resource: RateResource): boolean {
    const bucket = this.bucket(user, resource)
    return bucket.used >= bucket.limit
  }

  consume(user: SimUser, resource: RateResource, cost = 1): void {
    const bucket = this.bucket(user, resource)
    bucket.used = Math.min(bucket.limit, bucket.used + cost)
  }

  override(user: SimUser, resource: RateResource, change: RateLimitOverride): void {
    const bucket = this.bucket(user, resource)
    if (change.limit !== undefined) bucket.limit = change.limit
    if (change.remaining !== undefined) bucket.used = Math.max(0, bucket.limit - change.remaining)
    if (change.resetAt !== undefined) bucket.resetAt = change.resetAt
  }

  headers(user: SimUser, resource: RateResource): Record<string, string> {
    const bucket = this.bucket(user, resource)
    return {
      "x-ratelimit-limit": String(bucket.limit),
      "x-ratelimit-remaining": String(bucket.limit - bucket.used),
      "x-ratelimit-used": String(bucket.used),
      "x-ratelimit-reset": String(Math.ceil(bucket.resetAt / 1000)),
      "x-ratelimit-resource": resource
    }
  }
}
