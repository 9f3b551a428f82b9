import { isoSeconds } from "../world/SimClock"
import { itemLabel } from "../world/itemLabel"
import type { SimComment, SimItem, SimLabel, SimPull, SimReview } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { actorNode } from "./actorNode"
import { connection, type ConnectionArgs } from "./connection"
import { feedbackFields } from "./feedbackNodes"
import { repositoryNode } from "./repositoryNode"

const at = (ms: number | null) => (ms === null ? null : isoSeconds(ms))

/** A `Label` node. */
export const labelNode = (world: SimWorld, repo: SimRepository, label: SimLabel) => ({
  __typename: "Label",
  id: `LA_sim${label.id}`,
  name: label.name,
  color: label.color,
  description: label.description,
  isDefault: label.isDefault,
  url: `${world.baseUrl}/${repo.fullName}/labels/${encodeURIComponent(label.name)}`
})

const commentNode = (world: SimWorld, repo: SimRepository, item: SimItem, comment: SimComment) => ({
  __typename: "IssueComment",
  id: `IC_sim${comment.id}`,
  databaseId: comment.id,
  body: comment.body,
  bodyText: comment.body,
  author: actorNode(world, comment.author),
  authorAssociation: world.association(comment.author, repo),
  createdAt: isoSeconds(comment.createdAt),
  updatedAt: isoSeconds(comment.updatedAt),
  url: `${world.baseUrl}/${repo.fullName}/issues/${item.number}#issuecomment-${comment.id}`
})

const reviewNode = (world: SimWorld, repo: SimRepository, review: SimReview) => ({
  __typename: "PullRequestReview",
  id: `PRR_sim${review.id}`,
  state: review.state,
  body: review.body,
  bodyText: review.body,
  author: actorNode(world, review.author),
  authorAssociation: world.association(review.author, repo),
  createdAt: isoSeconds(review.submittedAt),
  submittedAt: isoSeconds(review.submittedAt),
  updatedAt: isoSeconds(review.submittedAt)
})

const MERGE_STATE: Record<string, string> = {
  clean: "CLEAN",
  dirty: "DIRTY",
  blocked: "BLOCKED",
  behind: "BEHIND",
  unstable: "UNSTABLE",
  has_hooks: "HAS_HOOKS",
  draft: "DRAFT"
}

const pullFields = (world: SimWorld, repo: SimRepository, item: SimItem, pull: SimPull) => ({
  __typename: "PullRequest",
  id: `PR_sim${item.id}`,
  databaseId: item.pullId,
  state: pull.merged ? "MERGED" : item.state === "open" ? "OPEN" : "CLOSED",
  url: `${world.baseUrl}/${repo.fullName}/pull/${item.number}`,
  permalink: `${world.baseUrl}/${repo.fullName}/pull/${item.number}`,
  headRefName: pull.head,
  headRefOid: pull.headSha,
  baseRefName: pull.base,
  baseRefOid: pull.baseSha,
  isCrossRepository: false,
  isDraft: pull.draft,
  merged: pull.merged,
  mergedAt: at(pull.mergedAt),
  mergedBy: pull.mergedBy === null ? null : actorNode(world, pull.mergedBy),
  mergeable: pull.mergeable === true ? "MERGEABLE" : pull.mergeable === false ? "CONFLICTING" : "UNKNOWN",
  mergeStateStatus: MERGE_STATE[pull.mergeableState] ?? "UNKNOWN",
  reviewDecision: pull.reviewDecision,
  reviews: (args: ConnectionArgs & { readonly states?: ReadonlyArray<string> | null }) =>
    connection(
      "reviews",
      pull.reviews.filter((review) => args.states == null || args.states.includes(review.state)).map((review) => reviewNode(world, repo, review)),
      args
    ),
  ...feedbackFields(world, repo, item, pull)
})

/** An `Issue` or `PullRequest` node with the fields usine reads; anything else fails loudly. */
export const itemNode = (world: SimWorld, repo: SimRepository, item: SimItem) => ({
  __typename: "Issue",
  id: `I_sim${item.id}`,
  databaseId: item.id,
  number: item.number,
  title: item.title,
  body: item.body ?? "",
  bodyText: item.body ?? "",
  lastEditedAt: item.lastEdit === null ? null : isoSeconds(item.lastEdit.at),
  editor: item.lastEdit === null ? null : actorNode(world, item.lastEdit.editor),
  state: item.state === "open" ? "OPEN" : "CLOSED",
  stateReason: item.stateReason === null ? null : item.stateReason.toUpperCase(),
  closed: item.state === "closed",
  locked: item.locked,
  url: `${world.baseUrl}/${repo.fullName}/issues/${item.number}`,
  createdAt: isoSeconds(item.createdAt),
  updatedAt: isoSeconds(item.updatedAt),
  closedAt: at(item.closedAt),
  author: actorNode(world, item.author),
  authorAssociation: world.association(item.author, repo),
  repository: () => repositoryNode(world, repo),
  labels: (args: ConnectionArgs) =>
    connection(
      "labels",
      item.labels.map((name) => labelNode(world, repo, itemLabel(repo, name))),
      args
    ),
  comments: (args: ConnectionArgs) =>
    connection("comments", item.comments.map((comment) => commentNode(world, repo, item, comment)), args),
  assignees: (args: ConnectionArgs) => connection("assignees", item.assignees.map((login) => actorNode(world, login)), args),
  ...(item.pull === undefined ? {} : pullFields(world, repo, item, item.pull))
})
