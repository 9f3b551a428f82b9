import { createHash, randomBytes } from "node:crypto"
import { Duration } from "effect"

/** How long a login lasts: `idle` without a request, `lifetime` at most. */
export interface SessionPolicy {
  readonly idle: Duration.Duration
  readonly lifetime: Duration.Duration
}

/** The Board's login sessions, held in the daemon's memory: a restart logs every browser out. */
export interface LoginSessions {
  /** Opens a session and returns its id (32 random bytes), the cookie's only content. */
  readonly open: () => string
  /** Whether the id names a live session; a live one's idle time starts again. */
  readonly touch: (id: string) => boolean
  /** Ends the session the id names, if any. */
  readonly close: (id: string) => void
}

/** Beyond this many live sessions the oldest is dropped, so a flood of logins cannot grow the daemon. */
const MAX_SESSIONS = 1_000

interface Session {
  readonly opened: number
  readonly seen: number
}

/** Only a digest of each id is kept, so the table answers lookups without holding a usable cookie. */
const keyOf = (id: string) => createHash("sha256").update(id).digest("base64url")

/** Sessions on `now` (the Clock's milliseconds, so a test moves time with `TestClock.adjust`). */
export const makeLoginSessions = (policy: SessionPolicy, now: () => number): LoginSessions => {
  const idle = Duration.toMillis(policy.idle)
  const lifetime = Duration.toMillis(policy.lifetime)
  const sessions = new Map<string, Session>()
  const live = (session: Session, at: number) => at - session.seen < idle && at - session.opened < lifetime

  const prune = (at: number) => {
    for (const [key, session] of sessions) if (!live(session, at)) sessions.delete(key)
    for (const key of sessions.keys()) {
      if (sessions.size < MAX_SESSIONS) break
      sessions.delete(key)
    }
  }

  return {
    open: () => {
      const at = now()
      prune(at)
      const id = randomBytes(32).toString("base64url")
      sessions.set(keyOf(id), { opened: at, seen: at })
      return id
    },
    touch: (id) => {
      const key = keyOf(id)
      const session = sessions.get(key)
      const at = now()
      if (session === undefined) return false
      sessions.delete(key)
      if (!live(session, at)) return false
      // Re-inserted last: the Map's order is least recently used first, which is what `prune` drops.
      sessions.set(key, { opened: session.opened, seen: at })
      return true
    },
    close: (id) => {
      sessions.delete(keyOf(id))
    }
  }
}
