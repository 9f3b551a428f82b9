import { Octokit } from "@octokit/rest"
import { retry } from "@octokit/plugin-retry"
import { throttling } from "@octokit/plugin-throttling"
import type { Endpoints, RequestParameters } from "@octokit/types"
import { Clock, Effect, Ref } from "effect"
import * as RedactedValue from "effect/Redacted"
import { currentToken, type GitHubCredential } from "./GitHubCredential"
import {
  type GitHubError,
  GitHubGraphQLFailed,
  GitHubRateLimited,
  GitHubRequestFailed,
  GitHubUnauthorized,
  GitHubUnreachable
} from "./GitHubError"
import { countStatus, emptyRateBudget, type RateBudget, retryAtFrom, updateFromHeaders } from "./RateBudget"

const UsineOctokit = Octokit.plugin(throttling, retry)
/**
 * GraphQL reads go through their own instance: plugin-throttling spaces every GraphQL request a second apart as
 * if it were a write, which would make a poll of a thousand changed Items take a quarter of an hour (ADR 0017).
 */
const ReaderOctokit = Octokit.plugin(retry)

interface GitHubClientOptions {
  /** A token, or a GitHub App's installation tokens: asked at each request, so a refreshed token is used at once. */
  readonly token: GitHubCredential
  /** `https://api.github.com`, a GitHub Enterprise `/api/v3` URL, or the emulator's URL. */
  readonly apiUrl: string
  /** Retries of 5xx answers and their backoff base; GitHub's own guidance is the default. */
  readonly retries?: number
  readonly retryBaseMs?: number
  /** A request (with its retries) unanswered this long fails as unreachable, so a hanging GitHub never stalls a poll. */
  readonly requestTimeoutMs?: number
}

type Route = keyof Endpoints
type Data<R extends Route> = Endpoints[R]["response"]["data"]
type Params<R extends Route> = Endpoints[R]["parameters"] & RequestParameters

interface Response<T> {
  readonly status: number
  readonly data: T
  readonly etag: string | undefined
  readonly link: string | undefined
  readonly headers: Readonly<Record<string, string | number | undefined>>
}

interface GraphQLBody<T> {
  readonly data?: T | null
  readonly errors?: ReadonlyArray<{
    readonly message: string
    readonly type?: string
    readonly path?: ReadonlyArray<string | number>
  }>
}

/** One entry of a GraphQL answer's `errors`. */
interface GraphQLErrorEntry {
  readonly message: string
  /** GitHub's classification: `NOT_FOUND`, `FORBIDDEN`, ...; absent for a malformed document. */
  readonly type: string | undefined
  readonly path: ReadonlyArray<string | number>
}

/** What a GraphQL document answered: its data, and the errors of the parts that failed. */
interface GraphQLAnswer<T> {
  readonly data: T | undefined
  readonly errors: ReadonlyArray<GraphQLErrorEntry>
}

/** The typed failure for a set of GraphQL errors. */
export const graphqlFailed = (errors: ReadonlyArray<GraphQLErrorEntry>): GitHubGraphQLFailed =>
  new GitHubGraphQLFailed({ errors: errors.map((e) => e.message), types: errors.map((e) => e.type ?? "") })

type Conditional<T> =
  | ({ readonly _tag: "Fresh" } & Response<T>)
  | { readonly _tag: "NotModified"; readonly etag: string }

interface RequestErrorLike {
  readonly status?: number
  readonly message?: string
  readonly response?: { readonly headers?: Record<string, string | number | undefined>; readonly data?: unknown }
}

/** The one wrapped octokit: REST and GraphQL, throttled, retried, rate budget tracked, token never logged. */
export class GitHubClient extends Effect.Service<GitHubClient>()("usine/GitHubClient", {
  effect: Effect.fn("GitHubClient.make")(function* (options: GitHubClientOptions) {
    const budget = yield* Ref.make<RateBudget>(emptyRateBudget)
    const baseUrl = options.apiUrl.replace(/\/+$/, "")
    const common = {
      baseUrl,
      userAgent: "usine",
      log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
      retry: {
        doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
        retries: options.retries ?? 3,
        retryAfterBaseValue: options.retryBaseMs ?? 1000
      }
    }
    const octokit = new UsineOctokit({
      ...common,
      // Rate limits are not waited out inside a request: the caller's loop waits, so a poll never stalls.
      throttle: { onRateLimit: () => false, onSecondaryRateLimit: () => false }
    })
    const reader = new ReaderOctokit(common)
    // GitHub Enterprise serves GraphQL at /api/graphql beside the REST root /api/v3.
    const graphqlRoute = `POST ${baseUrl.replace(/\/api\/v3$/, "/api")}/graphql`

    const classify = (route: string, error: RequestErrorLike, now: number): GitHubError | "NotModified" => {
      const status = error.status
      const headers = error.response?.headers ?? {}
      if (status === 304) return "NotModified"
      if (status === undefined || status === 0 || (status === 500 && error.response === undefined))
        return new GitHubUnreachable({ route, detail: error.message ?? "no response" })
      if (status === 401) return new GitHubUnauthorized({ route })
      const message = error.message ?? ""
      const secondary = /secondary rate/i.test(message)
      const limited =
        status === 429 ||
        (status === 403 && (secondary || headers["retry-after"] !== undefined || String(headers["x-ratelimit-remaining"]) === "0"))
      if (limited) return new GitHubRateLimited({ route, retryAt: retryAtFrom(now, headers, 60), secondary })
      return new GitHubRequestFailed({ route, status, detail: message.slice(0, 500) })
    }

    const guardWindow = (route: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const { waitUntil } = yield* Ref.get(budget)
        if (now < waitUntil) return yield* Effect.fail(new GitHubRateLimited({ route, retryAt: waitUntil, secondary: false }))
      })

    const send = <T>(route: string, params: RequestParameters | undefined, etag: string | undefined, client = octokit) =>
      Effect.gen(function* () {
        yield* guardWindow(route)
        const token = yield* currentToken(options.token).pipe(
          Effect.mapError((error) => new GitHubUnreachable({ route, detail: error.message }))
        )
        const authorization = `token ${RedactedValue.value(token)}`
        const headers = etag === undefined ? { authorization } : { authorization, "if-none-match": etag }
        const result = yield* Effect.tryPromise({
          try: (signal) => client.request(route, { ...params, headers, request: { signal } } as never),
          catch: (error) => error as RequestErrorLike
        }).pipe(
          Effect.timeoutFail({
            duration: options.requestTimeoutMs ?? 30_000,
            onTimeout: (): RequestErrorLike => ({ message: `no answer within ${options.requestTimeoutMs ?? 30_000} ms` })
          }),
          Effect.map((response) => ({ _tag: "ok" as const, response })),
          Effect.catchAll((error) => Effect.succeed({ _tag: "error" as const, error }))
        )
        const now = yield* Clock.currentTimeMillis
        // The answer's status on the request's span (a trace shows 304s, 403s and 422s); never a URL or a header.
        yield* Effect.annotateCurrentSpan("http.response.status_code", result._tag === "ok" ? result.response.status : result.error.status ?? 0)
        if (result._tag === "ok") {
          const h = result.response.headers as Record<string, string | number | undefined>
          yield* Ref.update(budget, (b) => ({
            ...updateFromHeaders(countStatus(b, result.response.status), h),
            requests: b.requests + 1
          }))
          return {
            _tag: "Fresh",
            status: result.response.status,
            data: result.response.data as T,
            etag: h["etag"] === undefined ? undefined : String(h["etag"]),
            link: h["link"] === undefined ? undefined : String(h["link"]),
            headers: h
          } satisfies Conditional<T>
        }
        const h = result.error.response?.headers ?? {}
        const classified = classify(route, result.error, now)
        yield* Ref.update(budget, (b) => ({
          ...updateFromHeaders(countStatus(b, result.error.status), h),
          requests: b.requests + 1,
          notModified: b.notModified + (classified === "NotModified" ? 1 : 0),
          waitUntil: classified !== "NotModified" && classified._tag === "GitHubRateLimited"
            ? Math.max(b.waitUntil, classified.retryAt)
            : b.waitUntil
        }))
        if (classified === "NotModified") return { _tag: "NotModified", etag: etag ?? "" } satisfies Conditional<T>
        return yield* Effect.fail(classified)
      })

    /** Any REST route; fails with a typed error. */
    const request = <R extends Route>(route: R, params?: Params<R>): Effect.Effect<Response<Data<R>>, GitHubError> =>
      send<Data<R>>(route, params, undefined).pipe(
        Effect.flatMap((r) =>
          r._tag === "Fresh"
            ? Effect.succeed(r)
            : Effect.fail(new GitHubRequestFailed({ route, status: 304, detail: "unexpected 304" }))
        ),
        Effect.withSpan("GitHubClient.request", { attributes: { route } })
      )

    /** A GET with `If-None-Match`: an unchanged resource answers NotModified and costs no primary quota. */
    const conditional = <R extends Route>(route: R, params: Params<R> | undefined, etag: string | undefined) =>
      send<Data<R>>(route, params, etag).pipe(Effect.withSpan("GitHubClient.conditional", { attributes: { route } }))

    const graphqlRateLimited = (response: Response<unknown>): Effect.Effect<never, GitHubRateLimited> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const headers = { ...response.headers, "x-ratelimit-remaining": "0" }
        const retryAt = retryAtFrom(now, headers, 60)
        yield* Ref.update(budget, (b) => ({ ...b, waitUntil: Math.max(b.waitUntil, retryAt) }))
        return yield* Effect.fail(new GitHubRateLimited({ route: "POST /graphql", retryAt, secondary: false }))
      })

    /**
     * A GraphQL document whose errors come back beside the data, so one missing Item of a batch does not hide the
     * others; a spent GraphQL budget is a rate limit.
     */
    const graphqlPartial = <T>(
      query: string,
      variables: Record<string, unknown>
    ): Effect.Effect<GraphQLAnswer<T>, GitHubError> =>
      send<GraphQLBody<T>>(graphqlRoute, { query, variables }, undefined, reader).pipe(
        Effect.flatMap((response): Effect.Effect<GraphQLAnswer<T>, GitHubError> => {
          if (response._tag === "NotModified") return Effect.die("GraphQL answered 304")
          const errors = response.data.errors ?? []
          if (errors.some((e) => e.type === "RATE_LIMITED")) return graphqlRateLimited(response)
          return Effect.succeed({
            data: response.data.data ?? undefined,
            errors: errors.map((e) => ({ message: e.message, type: e.type, path: e.path ?? [] }))
          })
        }),
        Effect.withSpan("GitHubClient.graphql")
      )

    /** A GraphQL document; any of GitHub's `errors` becomes a typed failure. */
    const graphql = <T>(query: string, variables: Record<string, unknown>): Effect.Effect<T, GitHubError> =>
      Effect.flatMap(graphqlPartial<T>(query, variables), ({ data, errors }) =>
        errors.length > 0 ? Effect.fail(graphqlFailed(errors)) : Effect.succeed(data as T)
      )

    return {
      request,
      conditional,
      graphql,
      graphqlPartial,
      /** The primary rate budget as last reported, with the current wait window. */
      budget: Ref.get(budget)
    } as const
  })
}) {}
