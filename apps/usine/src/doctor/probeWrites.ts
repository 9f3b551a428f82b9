import { Effect, Redacted } from "effect"
import { GitHubClient } from "@usine/github/GitHubClient"
import { currentToken, type GitHubCredential } from "@usine/github/GitHubCredential"
import type { GitHubError } from "@usine/github/GitHubError"

/** What a probe learnt of one permission: GitHub let the token through, refused it, or said something else. */
export type ProbeAnswer =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Refused"; readonly status: number }
  | { readonly _tag: "Unclear"; readonly detail: string }

export interface WriteProbe {
  /** As GitHub's settings page names it: `Pull requests`. */
  readonly permission: string
  readonly answer: ProbeAnswer
}

/** A branch name no repository has: a probe naming it as head and base can only be refused or invalid. */
const PROBE_BRANCH = "usine-doctor/no-such-branch-7b0f3c"

/** A refused write is 403 (a fine-grained token's missing permission, or a role too weak); a 422 got past the check. */
const fromRequest = (answer: Effect.Effect<unknown, GitHubError>) =>
  answer.pipe(
    Effect.as<ProbeAnswer>({ _tag: "Unclear", detail: "GitHub accepted a request meant to be invalid" }),
    Effect.catchAll((error): Effect.Effect<ProbeAnswer> => {
      if (error._tag !== "GitHubRequestFailed") return Effect.succeed({ _tag: "Unclear", detail: error.message })
      if (error.status === 422) return Effect.succeed({ _tag: "Allowed" })
      if (error.status === 403 || error.status === 404) return Effect.succeed({ _tag: "Refused", status: error.status })
      return Effect.succeed({ _tag: "Unclear", detail: `${error.status}` })
    })
  )

/** git's push advertisement (`info/refs?service=git-receive-pack`): the same check as a push, without one. */
const pushAdvertisement = (cloneUrl: string, credential: GitHubCredential) =>
  Effect.flatMap(currentToken(credential), (token) => Effect.tryPromise(() =>
    fetch(`${cloneUrl.replace(/\/+$/, "")}/info/refs?service=git-receive-pack`, {
      headers: {
        authorization: `Basic ${Buffer.from(`x-access-token:${Redacted.value(token)}`).toString("base64")}`,
        "user-agent": "git/2.43.0 (usine doctor)"
      },
      signal: AbortSignal.timeout(15_000)
    }).then((response) => {
      void response.body?.cancel()
      return response.status
    })
  )).pipe(
    Effect.map((status): ProbeAnswer =>
      status === 200 ? { _tag: "Allowed" }
      : status === 401 || status === 403 || status === 404 ? { _tag: "Refused", status }
      : { _tag: "Unclear", detail: `${status}` }
    ),
    Effect.catchAll(() => Effect.succeed<ProbeAnswer>({ _tag: "Unclear", detail: `${cloneUrl} did not answer` }))
  )

/**
 * Whether the token may write where usine writes, asked so that nothing changes: a pull request between two
 * branches that do not exist (422 when allowed, 403 when not), a label with an invalid color (the same), and git's
 * push advertisement. `GET /repos` `permissions` shows the account's role, not a fine-grained token's limits.
 */
export const probeWrites = (repository: string, cloneUrl: string, token: GitHubCredential) =>
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const [owner = "", repo = ""] = repository.split("/")
    const pulls = yield* fromRequest(
      client.request("POST /repos/{owner}/{repo}/pulls", { owner, repo, head: PROBE_BRANCH, base: PROBE_BRANCH, title: "usine doctor probe" })
    )
    const issues = yield* fromRequest(
      client.request("POST /repos/{owner}/{repo}/labels", { owner, repo, name: "usine doctor probe", color: "not-a-color" })
    )
    const contents = yield* pushAdvertisement(cloneUrl, token)
    return [
      { permission: "Pull requests", answer: pulls },
      { permission: "Issues", answer: issues },
      { permission: "Contents", answer: contents }
    ] satisfies ReadonlyArray<WriteProbe>
  })
