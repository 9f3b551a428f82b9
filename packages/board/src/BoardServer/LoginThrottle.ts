import { Duration } from "effect"

/** Wrong tokens a client may send in `LOGIN_WINDOW` before it must wait. */
const LOGIN_FAILURES = 5
const LOGIN_WINDOW = Duration.minutes(1)

/** Wrong-token counts per client address, for the login form and the bearer header alike. */
export interface LoginThrottle {
  /** Seconds the client must wait before its next try; 0 when it may try now. */
  readonly retryAfter: (client: string) => number
  /** Counts a wrong token from the client. */
  readonly fail: (client: string) => void
  /** Forgets the client's failures: it gave the right token. */
  readonly pass: (client: string) => void
}

/** Beyond this many clients with recent failures the oldest is forgotten, so the table stays small. */
const MAX_CLIENTS = 10_000

/** A sliding window of failure times per client on `now` (the Clock's milliseconds). */
export const makeLoginThrottle = (now: () => number): LoginThrottle => {
  const window = Duration.toMillis(LOGIN_WINDOW)
  const failures = new Map<string, ReadonlyArray<number>>()
  const recent = (client: string, at: number) => (failures.get(client) ?? []).filter((time) => at - time < window)

  return {
    retryAfter: (client) => {
      const at = now()
      const times = recent(client, at)
      const oldest = times[times.length - LOGIN_FAILURES]
      return oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + window - at) / 1000))
    },
    fail: (client) => {
      const at = now()
      const times = [...recent(client, at), at].slice(-LOGIN_FAILURES)
      failures.delete(client)
      failures.set(client, times)
      for (const key of failures.keys()) {
        if (failures.size <= MAX_CLIENTS) break
        failures.delete(key)
      }
    },
    pass: (client) => {
      failures.delete(client)
    }
  }
}
