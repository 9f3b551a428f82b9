import { Data, Duration, Effect, type Redacted } from "effect"
import { appBotLogin } from "./AppIdentity"
import type { AppAuthFailed } from "./AppInstallationMint"
import { GitHubClient } from "./GitHubClient"
import type { ResolvedCredential } from "./resolveCredential"

/** How long the start waits for GitHub's first answer. */
const GITHUB_CHECK_TIMEOUT = Duration.seconds(15)

/** GitHub could not be reached, or refused the token, when usine started. */
class GitHubCheckFailed extends Data.TaggedError("GitHubCheckFailed")<{
  readonly apiUrl: string
  readonly reason: "unreachable" | "unauthorized" | "refused" | "app"
  readonly detail: string
}> {
  override get message() {
    switch (this.reason) {
      case "unreachable":
        return `cannot reach GitHub at ${this.apiUrl}: ${this.detail} (check github.api_url and the network)`
      case "unauthorized":
        return `GitHub at ${this.apiUrl} refused the token (401 Bad credentials): check github.token, github.token_file or GITHUB_TOKEN`
      case "refused":
        return `GitHub at ${this.apiUrl} refused GET /user: ${this.detail}`
      case "app":
        return `GitHub at ${this.apiUrl}: ${this.detail}`
    }
  }
}

/**
 * One `GET /user` without retries before anything starts, so a wrong URL or a bad token stops `usine up` at once
 * with one line instead of a poll loop reporting failures. Returns the account's login.
 */
const checkGitHub = (apiUrl: string, token: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
  const client = yield* GitHubClient
  const response = yield* client.request("GET /user").pipe(
    Effect.timeoutFail({
      duration: GITHUB_CHECK_TIMEOUT,
      onTimeout: () =>
        new GitHubCheckFailed({ apiUrl, reason: "unreachable", detail: `no answer within ${Duration.format(GITHUB_CHECK_TIMEOUT)}` })
    }),
    Effect.mapError((error) =>
      error._tag === "GitHubCheckFailed"
        ? error
        : new GitHubCheckFailed({
            apiUrl,
            reason: error._tag === "GitHubUnauthorized" ? "unauthorized" : error._tag === "GitHubUnreachable" ? "unreachable" : "refused",
            detail: error._tag === "GitHubUnreachable" ? error.detail : error.message
          })
    )
  )
  return response.data.login
  }).pipe(Effect.provide(GitHubClient.Default({ token, apiUrl, retries: 0 })), Effect.withSpan("checkGitHub"))

const appRefused = (apiUrl: string) => (error: AppAuthFailed) => new GitHubCheckFailed({ apiUrl, reason: "app", detail: error.message })

/** The account usine acts as: its login, and for an App's bot its user id (how a commit credits the bot). */
interface GitHubAccount {
  readonly login: string
  readonly botUserId: number | undefined
}

/** The bot's user id, from `GET /users/{login}` under its first installation token. */
const botUserId = (apiUrl: string, login: string, token: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const answer = yield* client.request("GET /users/{username}", { username: login })
    return Number(answer.data.id)
  }).pipe(
    Effect.provide(GitHubClient.Default({ token, apiUrl, retries: 0 })),
    Effect.mapError((error) => new GitHubCheckFailed({ apiUrl, reason: "app", detail: `GET /users/${login}: ${error.message}` }))
  )

/**
 * `checkGitHub` for either credential. An App proves its id and key with `GET /app` (its bot's login, `<slug>[bot]`)
 * and its installation by minting the first installation token, which the daemon then uses.
 */
export const checkGitHubCredential = (apiUrl: string, credential: ResolvedCredential): Effect.Effect<GitHubAccount, GitHubCheckFailed> =>
  credential._tag === "Token"
    ? Effect.map(checkGitHub(apiUrl, credential.token), (login) => ({ login, botUserId: undefined }))
    : Effect.gen(function* () {
        const login = yield* appBotLogin(credential.app).pipe(Effect.mapError(appRefused(apiUrl)))
        const token = yield* credential.supply.pipe(Effect.mapError(appRefused(apiUrl)))
        return { login, botUserId: yield* botUserId(apiUrl, login, token) }
      }).pipe(
        Effect.timeoutFail({
          duration: GITHUB_CHECK_TIMEOUT,
          onTimeout: () => new GitHubCheckFailed({ apiUrl, reason: "unreachable", detail: `no answer within ${Duration.format(GITHUB_CHECK_TIMEOUT)}` })
        }),
        Effect.withSpan("checkGitHub.app")
      )
