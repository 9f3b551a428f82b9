/**
 * A fault the control API installs on the routes whose path matches. Git's smart-HTTP paths (`/{owner}/{name}.git/…`,
 * matched without the query) take only `status`: the request is refused before git runs.
 */
export interface FaultSpec {
  /** Only requests with this method (any when absent). */
  readonly method?: string
  /** `^...` is a regular expression; otherwise a glob where `*` stays within a segment and `**` spans segments. */
  readonly path: string
  /** Answer with this status instead of the real response (500, 502, 503, 403, 429). */
  readonly status?: number
  /** `Retry-After` seconds on a 403/429. */
  readonly retryAfter?: number
  /**
   * 403/429 flavour: `secondary` (the default), `primary` (x-ratelimit-remaining: 0), or `none`: a refusal that is no
   * rate limit (GitHub's "Resource not accessible by integration").
   */
  readonly rateLimit?: "primary" | "secondary" | "none"
  /** Wait this long before answering (with the fault, or with the real response). */
  readonly delayMs?: number
  /** Never answer (until the client gives up or the emulator stops). */
  readonly hang?: boolean
  /** Do the real work, then wait this long before answering: the change is made, its answer is late. */
  readonly delayAfterMs?: number
  /** Answer the real status and headers with only the first half of the body, as a transfer cut short. */
  readonly truncate?: boolean
  /** Apply to this many matching requests, then disappear (forever when absent). */
  readonly times?: number
}

interface Installed {
  readonly id: number
  readonly spec: FaultSpec
  readonly pattern: RegExp
  remaining: number
}

const globToRegExp = (glob: string): RegExp => {
  const body = glob
    .split("**")
    .map((part) => part.split("*").map((text) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*"))
    .join(".*")
  return new RegExp(`^${body}$`)
}

/** The installed faults, consulted once per request in installation order. */
export class FaultInjector {
  private faults: Array<Installed> = []
  private lastId = 0

  add(spec: FaultSpec): number {
    this.lastId += 1
    const pattern = spec.path.startsWith("^") ? new RegExp(spec.path) : globToRegExp(spec.path)
    this.faults.push({ id: this.lastId, spec, pattern, remaining: spec.times ?? Number.POSITIVE_INFINITY })
    return this.lastId
  }

  clear(): void {
    this.faults = []
  }

  /** The first fault matching the request, counting one use of it. */
  take(method: string, pathname: string): FaultSpec | undefined {
    const hit = this.faults.find(
      (fault) =>
        fault.remaining > 0 &&
        (fault.spec.method === undefined || fault.spec.method.toUpperCase() === method.toUpperCase()) &&
        fault.pattern.test(pathname)
    )
    if (hit === undefined) return undefined
    hit.remaining -= 1
    if (hit.remaining <= 0) this.faults = this.faults.filter((fault) => fault !== hit)
    return hit.spec
  }
}
