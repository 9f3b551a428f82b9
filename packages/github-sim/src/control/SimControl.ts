import type { components } from "@octokit/openapi-types"
import type { Effect } from "effect"
import type { GitCommandFailed } from "../git/runGit"
import type { LoggedRequest } from "../http/RequestLog"
import type { ApiError } from "../world/ApiError"
import type * as Inputs from "./ControlInputs"

type In<S extends { readonly Type: unknown }> = S["Type"]
type Fails = ApiError | GitCommandFailed

/** A repository as the control API reports it. */
export interface CreatedRepository {
  readonly fullName: string
  readonly cloneUrl: string
  readonly defaultBranch: string
  /** The seed commit, when the repository was seeded. */
  readonly headSha: string | null
}

/** The emulator's control surface, for tests and `usine demo` (in process, and as `POST /_sim/{method}`). */
export interface SimControl {
  /** Registers an account and its token (a random token when none is given). */
  readonly createUser: (input: In<typeof Inputs.CreateUser>) => Effect.Effect<{ readonly login: string; readonly id: number; readonly token: string }, Fails>
  /** Gives an account with a role a fine-grained token (`github_pat_…`) with those permissions and no others. */
  readonly createFineGrainedToken: (input: In<typeof Inputs.CreateFineGrainedToken>) => Effect.Effect<{ readonly token: string }, Fails>
  /** Sets an account's role on one repository. */
  readonly setPermission: (input: In<typeof Inputs.SetPermission>) => Effect.Effect<void, Fails>
  /** Sets who is in an organization's team (`org/team-slug`), replacing its members: what team membership reads answer. */
  readonly setTeamMembers: (input: In<typeof Inputs.SetTeamMembers>) => Effect.Effect<void, Fails>
  /** Creates a repository with its bare git repository, GitHub's default labels, and an optional seed commit. */
  readonly createRepository: (input: In<typeof Inputs.CreateRepository>) => Effect.Effect<CreatedRepository, Fails>
  /** Opens an issue as `author` (default: the owner); labels are applied by the author. */
  readonly createIssue: (input: In<typeof Inputs.CreateIssue>) => Effect.Effect<components["schemas"]["issue"], Fails>
  /** Changes an issue as `actor`; label changes record events with that actor. */
  readonly updateIssue: (input: In<typeof Inputs.UpdateIssue>) => Effect.Effect<components["schemas"]["issue"], Fails>
  /** Comments on an issue or pull request. */
  readonly addComment: (input: In<typeof Inputs.AddComment>) => Effect.Effect<components["schemas"]["issue-comment"], Fails>
  /** Adds a label to the catalog. */
  readonly createLabel: (input: In<typeof Inputs.CreateLabel>) => Effect.Effect<components["schemas"]["label"], Fails>
  /** Adds labels to an item as `actor` (a timeline `labeled` event each). */
  readonly addLabels: (input: In<typeof Inputs.AddLabels>) => Effect.Effect<components["schemas"]["issue"], Fails>
  /** Removes a label from an item as `actor`. */
  readonly removeLabel: (input: In<typeof Inputs.RemoveLabel>) => Effect.Effect<components["schemas"]["issue"], Fails>
  /** Opens a pull request from a branch of the bare repository, with the REST API's checks. */
  readonly createPullRequest: (input: In<typeof Inputs.CreatePullRequest>) => Effect.Effect<components["schemas"]["pull-request"], Fails>
  /** Merges a pull request (fast-forwarding its base branch when possible). */
  readonly mergePullRequest: (input: In<typeof Inputs.PullAction>) => Effect.Effect<components["schemas"]["pull-request"], Fails>
  /** Closes a pull request without merging. */
  readonly closePullRequest: (input: In<typeof Inputs.PullAction>) => Effect.Effect<components["schemas"]["pull-request"], Fails>
  /** Sets what GitHub computes: mergeability, merge state, review decision. */
  readonly setMergeState: (input: In<typeof Inputs.SetMergeState>) => Effect.Effect<components["schemas"]["pull-request"], Fails>
  /** Records a review on a pull request. */
  readonly addReview: (input: In<typeof Inputs.AddReview>) => Effect.Effect<void, Fails>
  /** Records a check run on a commit (its sha, or a pull request's head). */
  readonly addCheckRun: (input: In<typeof Inputs.AddCheckRun>) => Effect.Effect<{ readonly id: number; readonly sha: string }, Fails>
  /** Records a commit status on a commit (its sha, or a pull request's head). */
  readonly addCommitStatus: (input: In<typeof Inputs.AddCommitStatus>) => Effect.Effect<{ readonly id: number; readonly sha: string }, Fails>
  /** Opens an inline review thread on a pull request. */
  readonly addReviewThread: (input: In<typeof Inputs.AddReviewThread>) => Effect.Effect<{ readonly id: number }, Fails>
  /** Registers a GitHub App (bot `<slug>[bot]`, write on the repositories) installed on `account` for them. */
  readonly createApp: (input: In<typeof Inputs.CreateApp>) => Effect.Effect<{ readonly appId: number; readonly installationId: number; readonly botLogin: string }, Fails>
  /** Registers an OAuth App with its callback URL, for GitHub's web flow (`/login/oauth/authorize`, `/login/oauth/access_token`). */
  readonly createOAuthApp: (input: In<typeof Inputs.CreateOAuthApp>) => Effect.Effect<{ readonly clientId: string; readonly clientSecret: string }, Fails>
  /** Sets the life of installation tokens minted from now on (tests cross an expiry with 60 s). */
  readonly setInstallationTokenLifetime: (input: In<typeof Inputs.SetInstallationTokenLifetime>) => Effect.Effect<void, Fails>
  /** Installation tokens minted so far, and requests refused for carrying one past its expiry. */
  readonly installationTokenCounts: () => Effect.Effect<{ readonly minted: number; readonly refusedExpired: number }, Fails>
  /** Installs a fault on matching API routes. */
  readonly setFault: (input: In<typeof Inputs.Fault>) => Effect.Effect<{ readonly id: number }, Fails>
  /** Removes every fault. */
  readonly clearFaults: () => Effect.Effect<void, Fails>
  /** Every request answered since the last clear. */
  readonly requestLog: () => Effect.Effect<ReadonlyArray<LoggedRequest>, Fails>
  /** Forgets the request log. */
  readonly clearRequestLog: () => Effect.Effect<void, Fails>
  /** Sets the emulator's clock; time flows on from there. */
  readonly setTime: (input: In<typeof Inputs.SetTime>) => Effect.Effect<void, Fails>
  /** Moves the emulator's clock forward. */
  readonly advanceTime: (input: In<typeof Inputs.AdvanceTime>) => Effect.Effect<void, Fails>
  /** Overrides an account's rate-limit window (limit, remaining, reset time). */
  readonly setRateLimit: (input: In<typeof Inputs.SetRateLimit>) => Effect.Effect<void, Fails>
}
