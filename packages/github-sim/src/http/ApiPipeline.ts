import { createHash, randomUUID } from "node:crypto"
import { Effect, Either } from "effect"
import type { Hono, MiddlewareHandler } from "hono"
import type { ApiContext, ApiEnv } from "../rest/route"
import { errorBody, Forbidden } from "../world/ApiError"
import { neededFor } from "../world/FineGrainedTokens"
import { isoSeconds } from "../world/SimClock"
import type { SimWorld } from "../world/SimWorld"
import type { FaultInjector, FaultSpec } from "./FaultInjector"
import type { RateLimits, RateResource } from "./RateLimits"
import type { RequestLog } from "./RequestLog"

/** What the pipeline needs from the emulator. */
interface PipelineDeps {
  readonly world: SimWorld
  readonly faults: FaultInjector
  readonly limits: RateLimits
  readonly log: RequestLog
  /** Aborted when the emulator stops: hanging requests end then. */
  readonly shutdown: AbortSignal
}

const tokenOf = (header: string | undefined): string | undefined => {
  const match = header?.match(/^(?:token|bearer)\s+(\S+)$/i)
  return match?.[1]
}

const resourceOf = (path: string): RateResource => (path === "/graphql" ? "graphql" : "core")

/** `If-None-Match` matches with the weak comparison RFC 9110 prescribes for it. */
const matches = (ifNoneMatch: string, etag: string) =>
  ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)

const FOREVER_MS = 2_147_483_647

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const onAbort = () => {
      clearTimeout(timer)
      resolve()
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

/** Installs, in order: the request log, authentication, injected faults, the rate limit and conditional GETs. */
export const apiPipeline = (app: Hono<ApiEnv>, deps: PipelineDeps): void => {
  const { world, faults, limits, log, shutdown } = deps

  const logRequests: MiddlewareHandler<ApiEnv> = async (c, next) => {
    c.set("counted", false)
    const receivedAtMs = world.now()
    await next()
    const url = new URL(c.req.url)
    c.res.headers.set("x-github-request-id", randomUUID().toUpperCase())
    log.record({
      method: c.req.method,
      path: url.pathname + url.search,
      status: c.res.status,
      conditional: c.req.header("if-none-match") !== undefined,
      counted: c.get("counted"),
      login: c.get("user")?.login ?? null,
      at: isoSeconds(world.now()),
      receivedAtMs
    })
  }

  const authenticate: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const token = tokenOf(c.req.header("authorization"))
    const user = Effect.runSync(Effect.either(world.authenticate(token)))
    if (Either.isLeft(user)) return c.json(errorBody(user.left), 401)
    c.set("user", user.right)
    const lacking = world.fineGrained.refusal(token, neededFor(c.req.method, c.req.path))
    if (lacking !== undefined) {
      return c.json(errorBody(new Forbidden({ action: lacking })), 403, { "x-accepted-github-permissions": lacking })
    }
    await next()
  }

  const faultResponse = (c: ApiContext, fault: FaultSpec, status: number) => {
    const user = c.get("user")
    const headers: Record<string, string> = { ...limits.headers(user, resourceOf(c.req.path)) }
    if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter)
    if (status !== 403 && status !== 429) {
      return c.json({ message: status === 502 ? "Bad Gateway" : "Server Error" }, { status: status as 500, headers })
    }
    if (fault.rateLimit === "none") {
      return c.json({ ...errorBody403, message: "Resource not accessible by integration" }, { status, headers })
    }
    if (fault.rateLimit === "primary") {
      headers["x-ratelimit-remaining"] = "0"
      return c.json({ ...errorBody403, message: `API rate limit exceeded for user ID ${user.id}.` }, { status, headers })
    }
    headers["retry-after"] ??= "60"
    return c.json({ ...errorBody403, message: SECONDARY }, { status, headers })
  }

  const injectFaults: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const fault = faults.take(c.req.method, c.req.path)
    if (fault === undefined) return next()
    if (fault.delayMs !== undefined) await wait(fault.delayMs, shutdown)
    if (fault.hang === true) {
      await wait(FOREVER_MS, shutdown)
      return c.json({ message: "emulator stopped" }, 503)
    }
    if (fault.status !== undefined) return faultResponse(c, fault, fault.status)
    await next()
    if (fault.truncate === true) {
      const body = new Uint8Array(await c.res.arrayBuffer())
      c.res.headers.delete("content-length")
      c.res = new Response(body.subarray(0, Math.floor(body.length / 2)), { status: c.res.status, headers: c.res.headers })
    }
    if (fault.delayAfterMs !== undefined) await wait(fault.delayAfterMs, shutdown)
  }

  const rateAndConditional: MiddlewareHandler<ApiEnv> = async (c, next) => {
    const user = c.get("user")
    const resource = resourceOf(c.req.path)
    // GitHub does not charge GET /rate_limit; the GraphQL route charges the query's cost itself.
    const chargeable = c.req.path !== "/rate_limit"
    if (chargeable && limits.exhausted(user, resource)) {
      const message = `API rate limit exceeded for user ID ${user.id}.`
      const headers = limits.headers(user, resource)
      // GraphQL reports an exhausted budget in the errors of a 200, REST with a 403.
      if (resource === "graphql") return c.json({ errors: [{ type: "RATE_LIMITED", message }] }, { status: 200, headers })
      return c.json({ ...errorBody403, message }, { status: 403, headers })
    }
    await next()
    const ifNoneMatch = c.req.header("if-none-match")
    if (c.req.method === "GET" && c.res.status === 200) {
      const body = await c.res.clone().arrayBuffer()
      const etag = `"${createHash("sha256").update(Buffer.from(body)).update(c.res.headers.get("link") ?? "").digest("hex")}"`
      if (ifNoneMatch !== undefined && matches(ifNoneMatch, etag)) {
        const headers = new Headers({ etag, ...limits.headers(user, resource) })
        const link = c.res.headers.get("link")
        if (link !== null) headers.set("link", link)
        c.res = new Response(null, { status: 304, headers })
        return
      }
      c.res.headers.set("etag", etag)
    }
    if (chargeable && resource === "core") {
      limits.consume(user, resource)
      c.set("counted", true)
    }
    for (const [name, value] of Object.entries(limits.headers(user, resource))) c.res.headers.set(name, value)
    c.res.headers.set("vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
    c.res.headers.set("x-github-media-type", "github.v3; format=json")
  }

  app.use("*", logRequests, authenticate, injectFaults, rateAndConditional)
}

const SECONDARY =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID."

const errorBody403 = {
  documentation_url: "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
}
