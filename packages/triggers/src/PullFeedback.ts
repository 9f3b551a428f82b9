import { type CheckContextNode, type ChecksFields, checksOfContexts } from "@usine/core/checks/checksOfContexts"

/** An unresolved inline review thread, as `item.reviewThreads[]`: its first comment and where it is. */
export interface ReviewThreadFields {
  readonly path: string
  /** The line in the diff's new file; 0 when GitHub gives none (an outdated thread). */
  readonly line: number
  readonly body: string
  readonly author: string
  readonly authorAssociation: string
  readonly createdAt: string
  readonly url: string
}

interface ThreadNode {
  readonly isResolved: boolean
  readonly path: string
  readonly line: number | null
  readonly comments: {
    readonly nodes: ReadonlyArray<{
      readonly body: string
      readonly url: string
      readonly createdAt: string
      readonly authorAssociation: string
      readonly author: { readonly login: string } | null
    }>
  }
}

/** The GraphQL parts of a pull request's slice that feedback comes from. */
export interface FeedbackNode {
  readonly commits?: {
    readonly nodes: ReadonlyArray<{
      readonly commit: { readonly statusCheckRollup: { readonly contexts: { readonly nodes: ReadonlyArray<CheckContextNode> } } | null }
    }>
  }
  readonly reviewThreads?: { readonly nodes: ReadonlyArray<ThreadNode> }
}

/** The checks of the head commit; none on an issue or before CI reports. */
export const checksOf = (node: FeedbackNode): ChecksFields =>
  checksOfContexts(node.commits?.nodes[0]?.commit.statusCheckRollup?.contexts.nodes ?? [])

/** The unresolved inline review threads, each by its first comment. */
export const reviewThreadsOf = (node: FeedbackNode): ReadonlyArray<ReviewThreadFields> =>
  (node.reviewThreads?.nodes ?? []).flatMap((thread) => {
    const first = thread.comments.nodes[0]
    if (thread.isResolved || first === undefined) return []
    return [{
      path: thread.path,
      line: thread.line ?? 0,
      body: first.body,
      author: first.author?.login ?? "ghost",
      authorAssociation: first.authorAssociation,
      createdAt: first.createdAt,
      url: first.url
    }]
  })
