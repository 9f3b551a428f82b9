import { Clock, Effect, type Redacted } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { GitHubClient } from "@usine/github/GitHubClient"
import { fail, pass, type DoctorLine } from "./DoctorLine"

/** Clock skew beyond this against GitHub's `Date` breaks webhook, rate-limit and approval timing. */
export const MAX_CLOCK_SKEW_SECONDS = 60

const clockLine = (date: string | number | undefined, now: number): DoctorLine => {
  const github = date === undefined ? Number.NaN : Date.parse(String(date))
  if (Number.isNaN(github)) return fail("clock: GitHub's answer has no Date header to compare with")
  const skew = Math.round((now - github) / 1000)
  return Math.abs(skew) > MAX_CLOCK_SKEW_SECONDS
    ? fail(`clock: ${Math.abs(skew)} s ${skew > 0 ? "ahead of" : "behind"} GitHub's Date: synchronize this machine's clock (NTP)`)
    : pass(`clock: within ${Math.max(1, Math.abs(skew))} s of GitHub's Date`)
}

/**
 * What the token may do in one repository, from GitHub's answer to `GET /repos/{owner}/{repo}`: usine reads it
 * (`pull`), and pushes branches and opens pull requests (`push`).
 */
const repositoryLine = (repository: string) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const [owner = "", repo = ""] = repository.split("/")
    return yield* client.request("GET /repos/{owner}/{repo}", { owner, repo }).pipe(
      Effect.map((response): DoctorLine => {
        const permissions = response.data.permissions
        if (permissions === undefined) return fail(`${repository}: GitHub did not say what the token may do there`)
        if (!permissions.pull) return fail(`${repository}: the token cannot read it: grant Contents and Issues read`)
        return permissions.push
          ? pass(`${repository}: the token can read it and write contents and pull requests`)
          : fail(
              `${repository}: the token cannot write pull requests or contents (read only): grant Pull requests: read and write and Contents: read and write, or give its account write access`
            )
      }),
      Effect.catchAll((error) =>
        Effect.succeed(fail(`${repository}: ${error.message}: check repositories and the token's repository access`))
      )
    )
  })

/**
 * `GET /user` (the token is accepted), the clock against that answer's `Date`, then each repository's permissions.
 * A refused token stops there: nothing else can be asked.
 */
export const checkGitHubAccess = (config: UsineConfig, token: Redacted.Redacted<string>) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const user = yield* client.request("GET /user").pipe(Effect.either)
    if (user._tag === "Left")
      return [
        fail(
          user.left._tag === "GitHubUnauthorized"
            ? `GitHub at ${config.github.apiUrl} refused the token (401): check github.token, github.token_file or GITHUB_TOKEN`
            : `GitHub at ${config.github.apiUrl}: ${user.left.message} (check github.api_url and the network)`
        )
      ]
    const now = yield* Clock.currentTimeMillis
    const lines: Array<DoctorLine> = [
      pass(`GitHub at ${config.github.apiUrl} accepts the token (account ${user.right.data.login})`),
      clockLine(user.right.headers["date"], now)
    ]
    for (const repository of config.repositories) lines.push(yield* repositoryLine(repository))
    return lines
  }).pipe(
    Effect.timeout("30 seconds"),
    Effect.catchTag("TimeoutException", () => Effect.succeed([fail(`GitHub at ${config.github.apiUrl} did not answer within 30 s`)])),
    Effect.provide(GitHubClient.Default({ token, apiUrl: config.github.apiUrl, retries: 0, requestTimeoutMs: 15_000 }))
  )
