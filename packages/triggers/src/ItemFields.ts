import type { ChecksFields } from "@usine/core/checks/checksOfContexts"
import { checksOf, type FeedbackNode, type ReviewThreadFields, reviewThreadsOf } from "./PullFeedback"

/** A comment or review as `if:` and the prompt see it. */
export interface ContextComment {
  readonly body: string
  readonly author: string
  readonly authorAssociation: string
  readonly createdAt: string
}

/** Issues and pull requests share one number sequence per repository. */
export type ItemKind = "issue" | "pull_request"

/** An issue or pull request as `if:` and the prompt see it (`item.*`). */
export interface ItemFields {
  readonly kind: ItemKind
  readonly number: number
  readonly title: string
  readonly body: string
  /** `open`, `closed`, or `merged` for a merged pull request. */
  readonly state: "open" | "closed" | "merged"
  readonly url: string
  readonly author: string
  readonly authorAssociation: string
  readonly labels: ReadonlyArray<string>
  readonly assignees: ReadonlyArray<string>
  readonly comments: ReadonlyArray<ContextComment>
  readonly commentCount: number
  /** Pull requests only; empty values on issues so expressions never hit a missing field. */
  readonly isDraft: boolean
  readonly merged: boolean
  readonly mergeable: string
  readonly reviewDecision: string
  readonly headRef: string
  readonly headSha: string
  readonly baseRef: string
  readonly reviews: ReadonlyArray<ContextComment & { readonly state: string }>
  /** CI on the head commit; none on issues. */
  readonly checks: ChecksFields
  /** Unresolved inline review comments; none on issues. */
  readonly reviewThreads: ReadonlyArray<ReviewThreadFields>
}

/** A schedule Tick as `item.tick.*`. */
export interface TickFields {
  readonly scheduledAt: string
  readonly scheduledAtLocal: string
  readonly cron: string
  readonly tz: string
}

/** `item` of a schedule Loop's context. */
export interface TickItem {
  readonly kind: "tick"
  readonly tick: TickFields
}

interface Actor {
  readonly login: string
}
interface Node {
  readonly body: string
  readonly createdAt?: string
  readonly submittedAt?: string
  readonly authorAssociation: string
  readonly author: Actor | null
  readonly state?: string
}

/** The GraphQL node of `ISSUE_QUERY` or `PULL_REQUEST_QUERY`. */
export interface ItemNode extends FeedbackNode {
  readonly __typename: "Issue" | "PullRequest"
  readonly number: number
  readonly title: string
  readonly body: string
  readonly state: string
  readonly url: string
  readonly authorAssociation: string
  readonly author: Actor | null
  readonly lastEditedAt?: string | null
  readonly editor?: Actor | null
  readonly labels: { readonly nodes: ReadonlyArray<{ readonly name: string }> }
  readonly assignees: { readonly nodes: ReadonlyArray<Actor> }
  readonly comments: { readonly totalCount: number; readonly nodes: ReadonlyArray<Node> }
  readonly isDraft?: boolean
  readonly merged?: boolean
  readonly mergeable?: string
  readonly reviewDecision?: string | null
  readonly headRefName?: string
  readonly headRefOid?: string
  readonly baseRefName?: string
  readonly reviews?: { readonly nodes: ReadonlyArray<Node> }
}

const comment = (node: Node): ContextComment => ({
  body: node.body,
  author: node.author?.login ?? "ghost",
  authorAssociation: node.authorAssociation,
  createdAt: node.createdAt ?? node.submittedAt ?? ""
})

/** The last edit of an Item's body: who and when (ISO 8601). Not part of `item`: the Loop's view leaves it out. */
export interface BodyEdit {
  readonly at: string
  readonly editor: string
}

/** The body's last edit, if GitHub reports one; an editor GitHub no longer knows reads `ghost`. */
export const bodyEditOf = (node: Pick<ItemNode, "lastEditedAt" | "editor">): BodyEdit | undefined =>
  node.lastEditedAt == null ? undefined : { at: node.lastEditedAt, editor: node.editor?.login ?? "ghost" }

/** Which stream a stored payload slice belongs to. */
export const kindOfNode = (node: Pick<ItemNode, "__typename">): ItemKind =>
  node.__typename === "PullRequest" ? "pull_request" : "issue"

/** Normalizes a GraphQL payload slice into the fields expressions read. */
export const itemFieldsOf = (kind: ItemKind, node: ItemNode): ItemFields => ({
  kind,
  number: node.number,
  title: node.title,
  body: node.body ?? "",
  state: node.merged === true ? "merged" : node.state.toLowerCase() === "open" ? "open" : "closed",
  url: node.url,
  author: node.author?.login ?? "ghost",
  authorAssociation: node.authorAssociation,
  labels: node.labels.nodes.map((l) => l.name),
  assignees: node.assignees.nodes.map((a) => a.login),
  comments: node.comments.nodes.map(comment),
  commentCount: node.comments.totalCount,
  isDraft: node.isDraft ?? false,
  merged: node.merged ?? false,
  mergeable: node.mergeable ?? "",
  reviewDecision: node.reviewDecision ?? "",
  headRef: node.headRefName ?? "",
  headSha: node.headRefOid ?? "",
  baseRef: node.baseRefName ?? "",
  reviews: (node.reviews?.nodes ?? []).map((r) => ({ ...comment(r), state: r.state ?? "" })),
  checks: checksOf(node),
  reviewThreads: reviewThreadsOf(node)
})

