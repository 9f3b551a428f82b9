import { Clock, Context, Data, Effect, Layer, Option } from "effect"
import { GitHubClient } from "./GitHubClient"
import { type GitHubError, GitHubRequestFailed } from "./GitHubError"
import { info, type PullJson, type PullRequestInfo } from "./PullRequests/pullRequestInfo"

interface EnsureRequest {
  /** `owner/name`. */
  readonly repository: string
  /** A branch of the repository itself. */
  readonly head: string
  readonly base: string
  readonly title: string
  readonly body: string
  /** Opened as a draft; an existing pull request keeps its draft state. */
  readonly draft?: boolean | undefined
  /**
   * The open pull request from `head` as a listing read it just before (`findOpen`): `ensure` then does not look
   * again. Absent, `ensure` looks it up by head branch itself.
   */
  readonly existing?: Option.Option<PullRequestInfo> | undefined
}

/** What one listing of a repository's open pull requests says about a harvest's commit and branch. */
interface OpenPullRequests {
  /** An open pull request whose head is at the commit, whatever its branch (one the agent opened itself). */
  readonly byCommit: Option.Option<PullRequestInfo>
  /** The open pull request from the branch; `undefined` when the listing stopped before its end (too many open). */
  readonly byHead: Option.Option<PullRequestInfo> | undefined
}

interface EnsuredPullRequest {
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
    /** One listing of the open pull requests for both questions harvest asks: who is at this commit, who is on this branch. */
    readonly findOpen: (
      repository: string,
      at: { readonly sha: string; readonly head: string }
    ) => Effect.Effect<OpenPullRequests, PullRequestCallFailed>
    /** One pull request by number. */
    readonly get: (repository: string, number: number) => Effect.Effect<PullRequestInfo, PullRequestCallFailed>
    /** The repository's default branch, which new pull requests target; read again at most every 10 minutes (ADR 0051). */
    readonly defaultBranch: (repository: string) => Effect.Effect<string, PullRequestCallFailed>
    /** Drops the remembered default branch: a ref or a pull request's base was refused, so read it again next time. */
    readonly forgetDefaultBranch: (repository: string) => Effect.Effect<void>
  }
>() {
  /** Through usine's one GitHub client (REST pulls). */
  static readonly github: Layer.Layer<PullRequests, never, GitHubClient> = Layer.effect(
    PullRequests,
    Effect.map(GitHubClient, (client) => makeGitHubPullRequests(client))
  )
}

const split = (repository: string) => {
  const [owner = "", repo = ""] = repository.split("/")
  return { owner, repo }
}

/** How many pages of open pull requests `findOpen` reads before it gives up. */
const COMMIT_SEARCH_PAGES = 5

/** How long a default branch read from GitHub is used before it is read again (ADR 0051). */
const DEFAULT_BRANCH_TTL_MS = 10 * 60_000

const makeGitHubPullRequests = (client: GitHubClient): PullRequests["Type"] => {
  const failed = (operation: string) => (cause: GitHubError) => new PullRequestCallFailed({ operation, cause })

  const findByHead = Effect.fn("PullRequests.findByHead")(function* (repository: string, head: string) {
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}/pulls", { owner, repo, head: `${owner}:${head}`, state: "open", per_page: 10 })
      .pipe(Effect.mapError(failed(`list pull requests of ${repository} for ${head}`)))
    return Option.fromNullable(response.data.find((pull) => pull.head.ref === head)).pipe(Option.map(info))
  })

  const sameRepository = (repository: string) => (pull: PullJson) => pull.head.repo?.full_name.toLowerCase() === repository.toLowerCase()

  const findOpen = Effect.fn("PullRequests.findOpen")(function* (repository: string, at: { readonly sha: string; readonly head: string }) {
    const { owner, repo } = split(repository)
    const ours = sameRepository(repository)
    let byCommit = Option.none<PullRequestInfo>()
    let byHead = Option.none<PullRequestInfo>()
    for (let page = 1; page <= COMMIT_SEARCH_PAGES; page++) {
      const response = yield* client
        .request("GET /repos/{owner}/{repo}/pulls", { owner, repo, state: "open", per_page: 100, page })
        .pipe(Effect.mapError(failed(`list pull requests of ${repository}`)))
      for (const pull of response.data) {
        if (!ours(pull)) continue
        if (Option.isNone(byCommit) && pull.head.sha === at.sha) byCommit = Option.some(info(pull))
        if (Option.isNone(byHead) && pull.head.ref === at.head) byHead = Option.some(info(pull))
      }
      if (response.data.length < 100) return { byCommit, byHead }
      if (Option.isSome(byCommit) && Option.isSome(byHead)) return { byCommit, byHead }
    }
    // More open pull requests than the pages read: a branch not seen is not known to have none.
    return { byCommit, byHead: Option.isSome(byHead) ? byHead : undefined }
  })

  const get = Effect.fn("PullRequests.get")(function* (repository: string, number: number) {
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}/pulls/{pull_number}", { owner, repo, pull_number: number })
      .pipe(Effect.mapError(failed(`read pull request ${repository}#${number}`)))
    return info(response.data)
  })

  // Per repository, lower-cased: the default branch and when it was read (ADR 0051).
  const defaultBranches = new Map<string, { readonly branch: string; readonly readAt: number }>()

  const defaultBranch = Effect.fn("PullRequests.defaultBranch")(function* (repository: string) {
    const now = yield* Clock.currentTimeMillis
    const known = defaultBranches.get(repository.toLowerCase())
    if (known !== undefined && now - known.readAt < DEFAULT_BRANCH_TTL_MS) return known.branch
    const { owner, repo } = split(repository)
    const response = yield* client
      .request("GET /repos/{owner}/{repo}", { owner, repo })
      .pipe(Effect.mapError(failed(`read repository ${repository}`)))
    defaultBranches.set(repository.toLowerCase(), { branch: response.data.default_branch, readAt: now })
    return response.data.default_branch
  })

  const forgetDefaultBranch = (repository: string) => Effect.sync(() => void defaultBranches.delete(repository.toLowerCase()))

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
    const existing = request.existing ?? (yield* findByHead(repository, request.head))
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
        body: request.body,
        ...(request.draft === true ? { draft: true } : {})
      })
      .pipe(
        Effect.map((response) => Option.some(info(response.data))),
        // Another process opened it between our look and our create: GitHub answers 422 "already exists".
        Effect.catchIf(
          (error) => error._tag === "GitHubRequestFailed" && error.status === 422 && /already exists/i.test(error.detail),
          () => Effect.succeed(Option.none<PullRequestInfo>())
        ),
        // A refused base may be a default branch renamed since it was remembered.
        Effect.tapError((error) =>
          error._tag === "GitHubRequestFailed" && error.status === 422 ? forgetDefaultBranch(repository) : Effect.void
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

  return { ensure, findOpen, findByHead, get, defaultBranch, forgetDefaultBranch }
}
