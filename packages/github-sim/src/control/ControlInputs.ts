import { Schema } from "effect"
import { ACCESS_LEVELS } from "../world/FineGrainedTokens"
import { PERMISSIONS } from "../world/SimUser"

const opt = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })
const Repo = Schema.String.annotations({ description: "owner/name" })
const Number_ = Schema.Int.pipe(Schema.positive())
const Permission = Schema.Literal(...PERMISSIONS)

/** Registers an account with a token; `permission` applies to every repository without its own entry. */
export const CreateUser = Schema.Struct({
  login: Schema.String,
  token: opt(Schema.String),
  permission: opt(Permission),
  repositories: opt(Schema.Record({ key: Schema.String, value: Permission })),
  bot: opt(Schema.Boolean)
})

const Level = Schema.Literal(...ACCESS_LEVELS)

/** A fine-grained token for an existing account: its grants narrow the account's role (an absent one is `none`). */
export const CreateFineGrainedToken = Schema.Struct({
  login: Schema.String,
  permissions: Schema.Struct({ contents: opt(Level), issues: opt(Level), pull_requests: opt(Level) })
})

export const SetPermission = Schema.Struct({ login: Schema.String, repo: Repo, permission: Permission })
export const SetTeamMembers = Schema.Struct({
  org: Schema.String,
  team: Schema.String,
  members: Schema.Array(Schema.String),
  maintainers: Schema.optional(Schema.Array(Schema.String))
})

/** A repository, optionally seeded (one initial commit on the default branch) from a directory or inline files. */
export const CreateRepository = Schema.Struct({
  owner: Schema.String,
  name: Schema.String,
  defaultBranch: opt(Schema.String),
  private: opt(Schema.Boolean),
  description: opt(Schema.String),
  defaultLabels: opt(Schema.Boolean),
  seedDirectory: opt(Schema.String),
  files: opt(Schema.Record({ key: Schema.String, value: Schema.String }))
})

export const CreateIssue = Schema.Struct({
  repo: Repo,
  title: Schema.String,
  body: opt(Schema.NullOr(Schema.String)),
  labels: opt(Schema.Array(Schema.String)),
  assignees: opt(Schema.Array(Schema.String)),
  author: opt(Schema.String),
  state: opt(Schema.Literal("open", "closed"))
})

export const UpdateIssue = Schema.Struct({
  repo: Repo,
  number: Number_,
  title: opt(Schema.String),
  body: opt(Schema.NullOr(Schema.String)),
  state: opt(Schema.Literal("open", "closed")),
  labels: opt(Schema.Array(Schema.String)),
  assignees: opt(Schema.Array(Schema.String)),
  actor: opt(Schema.String)
})

export const AddComment = Schema.Struct({ repo: Repo, number: Number_, body: Schema.String, author: opt(Schema.String) })

export const CreateLabel = Schema.Struct({
  repo: Repo,
  name: Schema.String,
  color: opt(Schema.String),
  description: opt(Schema.String)
})

export const AddLabels = Schema.Struct({ repo: Repo, number: Number_, labels: Schema.Array(Schema.String), actor: opt(Schema.String) })

export const RemoveLabel = Schema.Struct({ repo: Repo, number: Number_, label: Schema.String, actor: opt(Schema.String) })

export const CreatePullRequest = Schema.Struct({
  repo: Repo,
  title: Schema.String,
  head: Schema.String,
  base: opt(Schema.String),
  body: opt(Schema.NullOr(Schema.String)),
  author: opt(Schema.String),
  draft: opt(Schema.Boolean)
})

export const PullAction = Schema.Struct({ repo: Repo, number: Number_, actor: opt(Schema.String) })

export const SetMergeState = Schema.Struct({
  repo: Repo,
  number: Number_,
  mergeable: opt(Schema.NullOr(Schema.Boolean)),
  mergeableState: opt(Schema.String),
  reviewDecision: opt(Schema.NullOr(Schema.Literal("APPROVED", "CHANGES_REQUESTED", "REVIEW_REQUIRED")))
})

export const AddReview = Schema.Struct({
  repo: Repo,
  number: Number_,
  author: Schema.String,
  state: Schema.Literal("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING"),
  body: opt(Schema.String)
})

/** The commit a check or status is on: `sha`, or the head of pull request `number`. */
const OnCommit = { repo: Repo, sha: opt(Schema.String), number: opt(Number_) }

/** A check run on a commit (`OnCommit`). */
export const AddCheckRun = Schema.Struct({
  ...OnCommit,
  name: Schema.String,
  status: opt(Schema.Literal("queued", "in_progress", "completed")),
  conclusion: opt(Schema.Literal("success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required", "stale")),
  detailsUrl: opt(Schema.String)
})

/** A commit status (`POST /statuses/{sha}`) on a commit (`OnCommit`). */
export const AddCommitStatus = Schema.Struct({
  ...OnCommit,
  context: Schema.String,
  state: Schema.Literal("success", "failure", "error", "pending"),
  targetUrl: opt(Schema.String)
})

/** An inline review thread on a pull request, with its first comment. */
export const AddReviewThread = Schema.Struct({
  repo: Repo,
  number: Number_,
  path: Schema.String,
  line: opt(Schema.NullOr(Number_)),
  body: Schema.String,
  author: Schema.String,
  resolved: opt(Schema.Boolean)
})

/** See `FaultSpec`. */
export const Fault = Schema.Struct({
  method: opt(Schema.String),
  path: Schema.String,
  status: opt(Schema.Int),
  retryAfter: opt(Schema.Number),
  rateLimit: opt(Schema.Literal("primary", "secondary", "none")),
  delayMs: opt(Schema.Number),
  hang: opt(Schema.Boolean),
  delayAfterMs: opt(Schema.Number),
  truncate: opt(Schema.Boolean),
  times: opt(Schema.Int)
})

export const SetTime = Schema.Struct({ at: Schema.String })
export const AdvanceTime = Schema.Struct({ ms: Schema.Number })

export const SetRateLimit = Schema.Struct({
  login: Schema.String,
  resource: opt(Schema.Literal("core", "graphql")),
  limit: opt(Schema.Int),
  remaining: opt(Schema.Int),
  resetAt: opt(Schema.String)
})

export const Empty = Schema.Struct({})

/** A GitHub App (its public key as PEM) installed on `account` for `repositories` (`owner/name`). */
export const CreateApp = Schema.Struct({
  slug: Schema.String,
  publicKey: Schema.String,
  account: Schema.String,
  repositories: Schema.Array(Schema.String)
})

/** An OAuth App people sign in with; absent credentials are made up. */
export const CreateOAuthApp = Schema.Struct({
  callbackUrl: Schema.String,
  name: Schema.optional(Schema.String),
  clientId: Schema.optional(Schema.String),
  clientSecret: Schema.optional(Schema.String)
})

/** The life of installation tokens minted from now on (GitHub's: 3600 s). */
export const SetInstallationTokenLifetime = Schema.Struct({ seconds: Schema.Number })
