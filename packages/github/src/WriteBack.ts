import { Effect } from "effect"
import type { LabelChange } from "@usine/core/config/WriteBackConfig"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"
import { LabelActors } from "./LabelActors"
import { repositoryParts } from "./repositoryParts"
import { nameReviewers, type ReviewerContext } from "./WriteBack/nameReviewers"

/** What to write on GitHub for one point of a Run's life (ADR 0065). */
export interface WriteBackRequest {
  readonly repository: string
  readonly number: number
  /** Labels to move on the Item. */
  readonly labels?: LabelChange | undefined
  /** The Run's pull request, its labels and reviewers (logins, `labeller` or `approver`). */
  readonly pullRequest?:
    | { readonly number: number; readonly labels: ReadonlyArray<string>; readonly reviewers: ReadonlyArray<string> }
    | undefined
  /** What names `labeller` and `approver`, and who is never asked. */
  readonly reviewerContext: ReviewerContext
  /** The one comment usine keeps on the Item: its text, and its id once written. */
  readonly comment?: { readonly body: string; readonly id: number | undefined } | undefined
}

/** What a write-back did besides its writes: the comment's id, and what it skipped. */
interface WriteBackApplied {
  readonly commentId: number | undefined
  readonly notes: ReadonlyArray<string>
}

const isMissing = (error: unknown) => error instanceof GitHubRequestFailed && error.status === 404
/** GitHub's answer to a reviewer it will not take (not a collaborator, the author): the others are still asked. */
const isRefusedReviewer = (error: unknown): error is GitHubRequestFailed => error instanceof GitHubRequestFailed && error.status === 422

/**
 * Writes a Run's status back to GitHub through the one throttled client: every step is idempotent (a label already
 * there or already gone, a reviewer already asked, the same comment edited again), so a retried write-back repeats
 * nothing. A reviewer nobody can name, or GitHub refuses, is a note, never a failure. Returns the comment's id and
 * the notes.
 */
export class WriteBack extends Effect.Service<WriteBack>()("usine/WriteBack", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const labelActors = yield* LabelActors

    const moveLabels = (repository: string, number: number, change: LabelChange) =>
      Effect.gen(function* () {
        const target = { ...repositoryParts(repository), issue_number: number }
        for (const name of change.remove) {
          yield* client
            .request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", { ...target, name })
            .pipe(Effect.catchIf(isMissing, () => Effect.void))
        }
        if (change.add.length > 0) {
          yield* client.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", { ...target, labels: [...change.add] })
        }
      })

    /** Asks each reviewer on its own, so one GitHub refuses leaves a note and the others are still asked. */
    const requestReviewers = (request: WriteBackRequest, pull: number, reviewers: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const { number, repository } = request
        const labellers = reviewers.includes("labeller")
          ? (yield* labelActors.actors(repository, number)).labellers
          : undefined
        const named = nameReviewers(reviewers, request.reviewerContext, labellers)
        const notes = [...named.notes]
        for (const login of named.logins) {
          yield* client
            .request("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", {
              ...repositoryParts(repository),
              pull_number: pull,
              reviewers: [login]
            })
            .pipe(Effect.catchIf(isRefusedReviewer, (error) => Effect.sync(() => notes.push(`reviewer ${login} refused: ${error.detail}`))))
        }
        return notes
      })

    const comment = (repository: string, number: number, body: string, id: number | undefined) =>
      Effect.gen(function* () {
        const parts = repositoryParts(repository)
        if (id !== undefined) {
          const edited = yield* client
            .request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { ...parts, comment_id: id, body })
            .pipe(Effect.as(true), Effect.catchIf(isMissing, () => Effect.succeed(false)))
          if (edited) return id
        }
        // Never written, or deleted by someone since: written anew.
        const created = yield* client.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
          ...parts,
          issue_number: number,
          body
        })
        return Number(created.data.id)
      })

    const apply = Effect.fn("WriteBack.apply")(function* (request: WriteBackRequest) {
      const { repository, number } = request
      if (request.labels !== undefined) yield* moveLabels(repository, number, request.labels)
      const pull = request.pullRequest
      let notes: ReadonlyArray<string> = []
      if (pull !== undefined) {
        if (pull.labels.length > 0) yield* moveLabels(repository, pull.number, { add: pull.labels, remove: [] })
        if (pull.reviewers.length > 0) notes = yield* requestReviewers(request, pull.number, pull.reviewers)
      }
      const c = request.comment
      const commentId = c === undefined ? c : yield* comment(repository, number, c.body, c.id)
      return { commentId, notes } satisfies WriteBackApplied
    })

    return { apply }
  }),
  dependencies: [LabelActors.Default]
}) {}
