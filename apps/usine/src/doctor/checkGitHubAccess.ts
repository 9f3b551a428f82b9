import { Clock, Effect } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { appBotLogin } from "@usine/github/AppIdentity"
import { GitHubClient } from "@usine/github/GitHubClient"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import { credentialOf, type ResolvedCredential } from "@usine/github/resolveCredential"
import { fail, pass, warn, type DoctorLine } from "./DoctorLine"
import { type ProbeAnswer, probeWrites, type WriteProbe } from "./probeWrites"

/** Clock skew beyond this against GitHub's `Date` breaks webhook, rate-limit and approval timing. */
const MAX_CLOCK_SKEW_SECONDS = 60

const clockLine = (date: string | number | undefined, now: number): DoctorLine => {
  const github = date === undefined ? Number.NaN : Date.parse(String(date))
  if (Number.isNaN(github)) return fail("clock: GitHub's answer has no Date header to compare with")
  const skew = Math.round((now - github) / 1000)
  return Math.abs(skew) > MAX_CLOCK_SKEW_SECONDS
    ? fail(`clock: ${Math.abs(skew)} s ${skew > 0 ? "ahead of" : "behind"} GitHub's Date: synchronize this machine's clock (NTP)`)
    : pass(`clock: within ${Math.max(1, Math.abs(skew))} s of GitHub's Date`)
}

const described = (probes: ReadonlyArray<WriteProbe>, tag: ProbeAnswer["_tag"]) =>
  probes.filter((p) => p.answer._tag === tag)

const listed = (names: ReadonlyArray<string>) =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/** One repository's line from the write probes: a ✗ names each permission GitHub refused, and what to grant. */
const probesLine = (repository: string, probes: ReadonlyArray<WriteProbe>): DoctorLine => {
  const refused = described(probes, "Refused")
  if (refused.length > 0) {
    const names = refused.map((p) => p.permission)
    return fail(
      `${repository}: the token may not write ${listed(names.map((n) => n.toLowerCase()))} (GitHub refused a harmless probe with ${
        listed([...new Set(refused.map((p) => (p.answer._tag === "Refused" ? p.answer.status : 0)))].map(String))
      }): grant ${listed(names.map((n) => `${n}: read and write`))} to the token`
    )
  }
  const unclear = described(probes, "Unclear")
  if (unclear.length > 0) {
    return warn(`${repository}: could not tell whether the token may write ${listed(unclear.map((p) => `${p.permission.toLowerCase()} (${p.answer._tag === "Unclear" ? p.answer.detail : ""})`))}`)
  }
  return pass(`${repository}: the token can read it and write issues, contents and pull requests (probed, nothing changed)`)
}

/**
 * What the token may do in one repository: `GET /repos/{owner}/{repo}` says whether its account may read it and has
 * a role that writes (`pull`, `push`); a fine-grained token's own limits are only seen by the write probes. An App's
 * installation has no role there: its permissions are only seen by the probes.
 */
const repositoryLine = (repository: string, token: GitHubCredential, app: boolean) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const [owner = "", repo = ""] = repository.split("/")
    return yield* client.request("GET /repos/{owner}/{repo}", { owner, repo }).pipe(
      Effect.flatMap((response): Effect.Effect<DoctorLine, never, GitHubClient> => {
        const permissions = response.data.permissions
        if (app) return Effect.map(probeWrites(repository, response.data.clone_url, token), (probes) => probesLine(repository, probes))
        if (permissions === undefined) return Effect.succeed(fail(`${repository}: GitHub did not say what the token may do there`))
        if (!permissions.pull) return Effect.succeed(fail(`${repository}: the token cannot read it: grant Contents and Issues read`))
        if (!permissions.push) {
          return Effect.succeed(fail(
            `${repository}: the token cannot write pull requests or contents (read only): grant Pull requests: read and write and Contents: read and write, or give its account write access`
          ))
        }
        return Effect.map(probeWrites(repository, response.data.clone_url, token), (probes) => probesLine(repository, probes))
      }),
      Effect.catchAll((error) =>
        Effect.succeed(fail(`${repository}: ${error.message}: check repositories and the token's repository access`))
      )
    )
  })

/** The App: `GET /app` under its JWT (its id and key), then an installation token minted and accepted by `GET /rate_limit`. */
const appLines = (config: UsineConfig, credential: Extract<ResolvedCredential, { _tag: "App" }>) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const login = yield* appBotLogin(credential.app).pipe(Effect.either)
    if (login._tag === "Left") return { accepted: false, lines: [fail(login.left.message)] }
    const answer = yield* client.request("GET /rate_limit").pipe(Effect.either)
    if (answer._tag === "Left") return { accepted: false, lines: [fail(`GitHub App ${credential.app.appId} (${login.right}): ${answer.left.message}`)] }
    const now = yield* Clock.currentTimeMillis
    return {
      accepted: true,
      lines: [
        pass(`GitHub at ${config.github.apiUrl} accepts the App ${credential.app.appId}'s installation token (acting as ${login.right})`),
        clockLine(answer.right.headers["date"], now)
      ]
    }
  })

/**
 * `GET /user` (the token is accepted; for an App, its JWT and an installation token), the clock against that
 * answer's `Date`, then each repository's permissions (its role from `GET /repos`, then the write probes).
 * A refused token stops there: nothing else can be asked.
 */
export const checkGitHubAccess = (config: UsineConfig, credential: ResolvedCredential) =>
  Effect.gen(function* () {
    const token = credentialOf(credential)
    if (credential._tag === "App") {
      const app = yield* appLines(config, credential)
      const lines = [...app.lines]
      if (app.accepted) for (const repository of config.repositories) lines.push(yield* repositoryLine(repository, token, true))
      return lines
    }
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
    for (const repository of config.repositories) lines.push(yield* repositoryLine(repository, token, false))
    return lines
  }).pipe(
    Effect.timeout("30 seconds"),
    Effect.catchTag("TimeoutException", () => Effect.succeed([fail(`GitHub at ${config.github.apiUrl} did not answer within 30 s`)])),
    Effect.provide(GitHubClient.Default({ token: credentialOf(credential), apiUrl: config.github.apiUrl, retries: 0, requestTimeoutMs: 15_000 }))
  )
