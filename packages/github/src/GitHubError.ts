import { Data } from "effect"

/** GitHub answered with an error status that is not a rate limit. */
export class GitHubRequestFailed extends Data.TaggedError("GitHubRequestFailed")<{
  readonly route: string
  readonly status: number
  readonly detail: string
}> {
  override get message() {
    return `GitHub ${this.route} failed with ${this.status}: ${this.detail}`
  }
}

/** GitHub asked us to wait (403/429 with Retry-After, a spent primary quota, or a secondary limit). */
export class GitHubRateLimited extends Data.TaggedError("GitHubRateLimited")<{
  readonly route: string
  /** Epoch ms before which no request is sent. */
  readonly retryAt: number
  readonly secondary: boolean
}> {
  override get message() {
    return `GitHub rate limit on ${this.route}: waiting until ${new Date(this.retryAt).toISOString()}`
  }
}

/** GitHub could not be reached at all (DNS, refused connection, timeout). */
export class GitHubUnreachable extends Data.TaggedError("GitHubUnreachable")<{
  readonly route: string
  readonly detail: string
}> {
  override get message() {
    return `GitHub unreachable for ${this.route}: ${this.detail}`
  }
}

/** The token was refused (401). */
export class GitHubUnauthorized extends Data.TaggedError("GitHubUnauthorized")<{ readonly route: string }> {
  override get message() {
    return `GitHub refused the token (401) on ${this.route}`
  }
}

/** A GraphQL document came back with errors. */
export class GitHubGraphQLFailed extends Data.TaggedError("GitHubGraphQLFailed")<{
  readonly errors: ReadonlyArray<string>
  /** GitHub's error type for each message (`NOT_FOUND`, `FORBIDDEN`, ...); empty when it gave none. */
  readonly types: ReadonlyArray<string>
}> {
  override get message() {
    return `GitHub GraphQL errors: ${this.errors.join("; ")}`
  }
}

export type GitHubError =
  | GitHubRequestFailed
  | GitHubRateLimited
  | GitHubUnreachable
  | GitHubUnauthorized
  | GitHubGraphQLFailed
