import { createHash, randomBytes } from "node:crypto"
import { Duration } from "effect"

/** How long a login lasts: `idle` without a request, `lifetime` at most. */
export interface SessionPolicy {
  readonly idle: Duration.Duration
  readonly lifetime: Duration.Duration
}

/** Who a session is: a person signed in with GitHub (their login), or the Board token's holder (no login). */
export interface SessionHolder {
  readonly login: string | undefined
}

/** The Board's login sessions, held in the daemon's memory: a restart logs every browser out. */
export interface LoginSessions {
  /** Opens a session for its holder and returns its id (32 random bytes), the cookie's only content. */
  readonly open: (holder: SessionHolder) => string
  /** The holder of the live session the id names, if any; a live one's idle time starts again. */
  readonly touch: (id: string) => SessionHolder | undefined
  /** Ends the session the id names, if any. */
  readonly close: (id: string) => void
}

/** Beyond this many live sessions the oldest is dropped, so a flood of logins cannot grow the daemon. */
const MAX_SESSIONS = 1_000

interface Session extends SessionHolder {
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
    open: (holder) => {
      const at = now()
      prune(at)
      const id = randomBytes(32).toString("base64url")
      sessions.set(keyOf(id), { login: holder.login, opened: at, seen: at })
      return id
    },
    touch: (id) => {
      const key = keyOf(id)
      const session = sessions.get(key)
      const at = now()
      if (session === undefined) return undefined
      sessions.delete(key)
      if (!live(session, at)) return undefined
      // Re-inserted last: the Map's order is least recently used first, which is what `prune` drops.
      sessions.set(key, { ...session, seen: at })
      return { login: session.login }
    },
    close: (id) => {
      sessions.delete(keyOf(id))
    }
  }
}
