/** One rate-limit resource as GitHub last reported it. */
export interface Quota {
  readonly limit: number | undefined
  readonly remaining: number | undefined
  /** Epoch ms when the quota resets. */
  readonly resetAt: number | undefined
}

/** The rate budgets as GitHub last reported them, and any wait it imposed. */
export interface RateBudget {
  /** REST (`core`): what polling spends; a 304 costs nothing. */
  readonly core: Quota
  /** GraphQL: what each Item's payload slice costs. */
  readonly graphql: Quota
  /** Epoch ms before which no request may be sent; 0 when none. */
  readonly waitUntil: number
  /** Requests sent, and how many of them were answered 304. */
  readonly requests: number
  readonly notModified: number
  /** Requests by the status GitHub answered (`200`, `304`, `404`), or `unreachable` when it did not answer. */
  readonly byStatus: Readonly<Record<string, number>>
}

const unknownQuota: Quota = { limit: undefined, remaining: undefined, resetAt: undefined }

export const emptyRateBudget: RateBudget = {
  core: unknownQuota,
  graphql: unknownQuota,
  waitUntil: 0,
  requests: 0,
  notModified: 0,
  byStatus: {}
}

/** Counts one more request answered with `status`. */
export const countStatus = (budget: RateBudget, status: number | undefined): RateBudget => {
  const key = status === undefined ? "unreachable" : String(status)
  return { ...budget, byStatus: { ...budget.byStatus, [key]: (budget.byStatus[key] ?? 0) + 1 } }
}

/** Reads the `x-ratelimit-*` headers of a response into the quota of the resource they name. */
export const updateFromHeaders = (
  budget: RateBudget,
  headers: Readonly<Record<string, string | number | undefined>>
): RateBudget => {
  const num = (name: string) => {
    const value = headers[name]
    return value === undefined ? undefined : Number(value)
  }
  const limit = num("x-ratelimit-limit")
  const remaining = num("x-ratelimit-remaining")
  const reset = num("x-ratelimit-reset")
  if (limit === undefined && remaining === undefined && reset === undefined) return budget
  const resource = headers["x-ratelimit-resource"] === "graphql" ? "graphql" : "core"
  const quota = budget[resource]
  return {
    ...budget,
    [resource]: {
      limit: limit ?? quota.limit,
      remaining: remaining ?? quota.remaining,
      resetAt: reset === undefined ? quota.resetAt : reset * 1000
    }
  }
}

/** Epoch ms to wait until, from a Retry-After header (seconds) or a reset time, whichever is given. */
export const retryAtFrom = (
  now: number,
  headers: Readonly<Record<string, string | number | undefined>>,
  fallbackSeconds: number
): number => {
  const retryAfter = headers["retry-after"]
  if (retryAfter !== undefined && !Number.isNaN(Number(retryAfter))) return now + Number(retryAfter) * 1000
  const remaining = headers["x-ratelimit-remaining"]
  const reset = headers["x-ratelimit-reset"]
  if (String(remaining) === "0" && reset !== undefined) return Math.max(now, Number(reset) * 1000 + 1000)
  return now + fallbackSeconds * 1000
}
