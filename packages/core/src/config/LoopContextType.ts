import { bool, int, listOf, type ObjectType, object, oneOf, str } from "./ContextType"

/** What GitHub reports as an author's relation to the repository. */
const authorAssociation = oneOf(
  "COLLABORATOR",
  "CONTRIBUTOR",
  "FIRST_TIMER",
  "FIRST_TIME_CONTRIBUTOR",
  "MANNEQUIN",
  "MEMBER",
  "NONE",
  "OWNER"
)

const comment = object("Comment", { body: str, author: str, authorAssociation, createdAt: str })

const review = object("Review", {
  body: str,
  author: str,
  authorAssociation,
  createdAt: str,
  state: oneOf("APPROVED", "CHANGES_REQUESTED", "COMMENTED", "DISMISSED", "PENDING")
})

const check = object("Check", {
  name: str,
  status: oneOf("queued", "in_progress", "completed", "waiting", "requested", "pending"),
  conclusion: oneOf(
    "success", "failure", "neutral", "cancelled", "skipped", "timed_out", "action_required", "startup_failure", "stale", "error", ""
  ),
  url: str
})

const checks = object("Checks", { all: listOf(check), total: int, passed: int, failed: int, pending: int })

const reviewThread = object("ReviewThread", {
  path: str,
  line: int,
  body: str,
  author: str,
  authorAssociation,
  createdAt: str,
  url: str
})

/**
 * `item` of an issue or pull request Loop, as `ItemFields` (packages/github) builds it: a conformance test there keeps
 * the two in step. The pull-request fields hold empty values on issues, so their enums admit `""`.
 */
const itemType = (kinds: ReadonlyArray<"issue" | "pull_request">): ObjectType =>
  object("Item", {
    kind: oneOf(...kinds),
    number: int,
    title: str,
    body: str,
    state: kinds.includes("pull_request") ? oneOf("open", "closed", "merged") : oneOf("open", "closed"),
    url: str,
    author: str,
    authorAssociation,
    labels: listOf(str),
    assignees: listOf(str),
    comments: listOf(comment),
    commentCount: int,
    isDraft: bool,
    merged: bool,
    mergeable: oneOf("MERGEABLE", "CONFLICTING", "UNKNOWN", ""),
    reviewDecision: oneOf("APPROVED", "CHANGES_REQUESTED", "REVIEW_REQUIRED", ""),
    headRef: str,
    headSha: str,
    baseRef: str,
    reviews: listOf(review),
    checks,
    reviewThreads: listOf(reviewThread)
  })

/** `item` of a schedule Loop: the Tick. */
const tickType: ObjectType = object("TickItem", {
  kind: oneOf("tick"),
  tick: object("Tick", { scheduledAt: str, scheduledAtLocal: str, cron: str, tz: str })
})

const issueItem = itemType(["issue"])
const pullRequestItem = itemType(["pull_request"])

/** The declared type of `item` for a Loop on `on`. */
export const loopContextType = (on: "issues" | "pull_requests" | "schedule"): ObjectType =>
  on === "schedule" ? tickType : on === "issues" ? issueItem : pullRequestItem
