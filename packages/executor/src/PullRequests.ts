import { Context, Data, Effect, Layer, Option } from "effect"
import { GitHubClient } from "@usine/github/GitHubClient"
import { type GitHubError, GitHubRequestFailed } from "@usine/github/GitHubError"

/** A pull request as harvest needs it. */
export interface PullRequestInfo {
  readonly number: number
  /** The page on GitHub (`html_url`). */
  readonly url: string
  readonly title: string
  readonly body: string
  readonly state: "open" | "closed"
  readonly headRef: string
  readonly headSha: string
  /** `owner/name` of the head branch's repository: another one for a pull request from a fork. */
  readonly headRepository: string | undefined
  readonly baseRef: string
}

export interface EnsureRequest {
  /** `owner/name`. */
  readonly repository: string
  /** A branch of the repository itself. */
  readonly head: string
  readonly base: string
  readonly title: string
  readonly body: string
}

export interface EnsuredPullRequest {
  readonly number: number
  readonly url: string
  /** False when an open pull request for the head already existed (and was updated if its text changed). */
  readonly created: boolean
}

/** GitHub refused or could not answer a pull-request call. */
export class PullRequestCallFailed extends Data.TaggedError("PullRequestCallFailed")<{
  readonly operation: string
  readonly cause: GitHubError
}> {
  /** The network, a 5xx or a rate limit: the same call can succeed later. */
  get transient(): boolean {
    const cause = this.cause
    return (
      cause._tag === "GitHubUnreachable" ||
      cause._tag === "GitHubRateLimited" ||
      (cause._tag === "GitHubRequestFailed" && cause.status >= 500)
    )
  }
  get retryAt(): number | undefined {
    return this.cause._tag === "GitHubRateLimited" ? this.cause.retryAt : undefined
  }
  override get message() {
    return `${this.operation}: ${this.cause.message}`
  }
}

/**
 * The pull requests of the repositories usine works on. `ensure` is idempotent by head branch, so a retried or
 * restarted harvest never opens a second pull request for the same Run.
 */
export class PullRequests extends Context.Tag("usine/PullRequests")<
  PullRequests,
  {
    /** Finds the open pull request for `owner:head` and updates its title and body if they changed, or opens one. */
    readonly ensure: (request: EnsureRequest) => Effect.Effect<EnsuredPullRequest, PullRequestCallFailed>
    /** The open pull request whose head is this branch of the repository. */
    readonly findByHead: (repository: string, head: string) => Effect.Effect<Option.Option<PullRequestInfo>, PullRequestCallFailed>
    /** An open pull request whose head is at this commit, whatever its branch (one the agent opened itself). */
    readonly findByCommit: (repository: string, sha: string) => Effect.Effect<Option.Option<PullRequestInfo>, PullRequestCallFailed>
    /** One pull request by number. */
    readonly get: (repository: string, number: number) => Effect.Effect<PullRequestInfo, PullRequestCallFailed>
    /** The repository's default branch, which new pull requests target. */
    readonly defaultBranch: (repository: string) => Effect.Effect<string, PullRequestCallFailed>
  }
>() {
  /** Through usine's one GitHub client (REST pulls). */
  static readonly github: Layer.Layer<PullRequests, never, GitHubClient> = Layer.effect(
    PullRequests,
    Effect.map(GitHubClient, (client) => makeGitHubPullRequests(client))
  )
}

interface PullJson {
  readonly number: number
  readonly html_url: string
  readonly title: string
  readonly body: string | null
  readonly state: string
  readonly head: { readonly ref: string; readonly sha: string; readonly repo: { readonly full_name: string } | null }
  readonly base: { readonly ref: string }
}

const info = (pull: PullJson): PullRequestInfo => ({
  number: pull.number,
  url: pull.html_url,
  title: pull.title,
  body: pull.body ?? "",
  state: pull.state === "open" ? "open" : "closed",
  headRef: pull.head.ref,
  headSha: pull.head.sha,
  headRepository: pull.head.repo?.full_name,
  baseRef: pull.base.ref
})

const split = (repository: string) => {
  const [owner = "", repo = ""] = repository.split("/")
  return { owner, repo }
}

/** How many pages of open pull requests `findByCommit` reads before it gives up. */
const COMMIT_SEARCH_PAGES = 5

export const makeGitHubPullRequests = (client: GitHubClient): PullRequests["Type"] => {
  const failed = (operation: string) => (cause: GitHubError) => new PullRequestCallFailed({ operation, cause })

  const findByHead = Effect.fn("PullRequests.findByHead")(function* (repository: string, head: string) {
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}/pulls", { owner, repo, head: `${owner}:${head}`, state: "open", per_page: 10 })
      .pipe(Effect.mapError(failed(`list pull requests of ${repository} for ${head}`)))
    return Option.fromNullable(response.data.find((pull) => pull.head.ref === head)).pipe(Option.map(info))
  })

  const findByCommit = Effect.fn("PullRequests.findByCommit")(function* (repository: string, sha: string) {
    const { owner, repo } = split(repository)
    for (let page = 1; page <= COMMIT_SEARCH_PAGES; page++) {
      const response = yield* client
        .request("GET /repos/{owner}/{repo}/pulls", { owner, repo, state: "open", per_page: 100, page })
        .pipe(Effect.mapError(failed(`list pull requests of ${repository}`)))
      const hit = response.data.find((pull) => pull.head.sha === sha && pull.head.repo?.full_name.toLowerCase() === repository.toLowerCase())
      if (hit !== undefined) return Option.some(info(hit))
      if (response.data.length < 100) break
    }
    return Option.none<PullRequestInfo>()
  })

  const get = Effect.fn("PullRequests.get")(function* (repository: string, number: number) {
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner, repo, pull_number: number })
      .pipe(Effect.mapError(failed(`read pull request ${repository}#${number}`)))
    return info(response.data)
  })

  const defaultBranch = Effect.fn("PullRequests.defaultBranch")(function* (repository: string) {
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}", { owner, repo })
      .pipe(Effect.mapError(failed(`read repository ${repository}`)))
    return response.data.default_branch
  })

  const update = (repository: string, existing: PullRequestInfo, request: EnsureRequest) =>
    Effect.gen(function* () {
      if (existing.title === request.title && existing.body === request.body) return
      const { owner, repo } = split(repository)
      yield* client
        .request("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", {
          owner,
          repo,
          pull_number: existing.number,
          title: request.title,
          body: request.body
        })
        .pipe(Effect.mapError(failed(`update pull request ${repository}#${existing.number}`)))
    })

  const ensure = Effect.fn("PullRequests.ensure")(function* (request: EnsureRequest) {
    const { repository } = request
    const existing = yield* findByHead(repository, request.head)
    if (Option.isSome(existing)) {
      yield* update(repository, existing.value, request)
      return { number: existing.value.number, url: existing.value.url, created: false }
    }
    const { owner, repo } = split(repository)
    const created = yield* client
      .request("POST /repos/{owner}/{repo}/pulls", {
        owner,
        repo,
        head: request.head,
        base: request.base,
        title: request.title,
        body: request.body
      })
      .pipe(
        Effect.map((response) => Option.some(info(response.data))),
        // Another process opened it between our look and our create: GitHub answers 422 "already exists".
        Effect.catchIf(
          (error) => error._tag === "GitHubRequestFailed" && error.status === 422 && /already exists/i.test(error.detail),
          () => Effect.succeed(Option.none<PullRequestInfo>())
        ),
        Effect.mapError(failed(`open a pull request on ${repository} from ${request.head}`))
      )
    if (Option.isSome(created)) return { number: created.value.number, url: created.value.url, created: true }
    const raced = yield* findByHead(repository, request.head)
    if (Option.isNone(raced)) {
      return yield* new PullRequestCallFailed({
        operation: `open a pull request on ${repository} from ${request.head}`,
        cause: new GitHubRequestFailed({
          route: "POST /repos/{owner}/{repo}/pulls",
          status: 422,
          detail: "GitHub says one already exists, but none is open for the branch"
        })
      })
    }
    yield* update(repository, raced.value, request)
    return { number: raced.value.number, url: raced.value.url, created: false }
  })

  return { ensure, findByHead, findByCommit, get, defaultBranch }
}
