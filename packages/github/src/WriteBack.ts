import { Effect } from "effect"
import type { LabelChange } from "@usine/core/config/WriteBackConfig"
import { labelsToCheck } from "@usine/core/trust/labelsToCheck"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"
import { LabelActors } from "./LabelActors"
import { repositoryParts } from "./repositoryParts"

/** What to write on GitHub for one point of a Run's life (ADR 0065). */
export interface WriteBackRequest {
  readonly repository: string
  readonly number: number
  /** Labels to move on the Item. */
  readonly labels?: LabelChange | undefined
  /** The Run's pull request, its labels and reviewers (logins, or `labeller` for who triggered the Run). */
  readonly pullRequest?:
    | { readonly number: number; readonly labels: ReadonlyArray<string>; readonly reviewers: ReadonlyArray<string> }
    | undefined
  /** The Loop's `if:`, to find who added the label that triggered it (`labeller`). */
  readonly ifSource: string
  /** The one comment usine keeps on the Item: its text, and its id once written. */
  readonly comment?: { readonly body: string; readonly id: number | undefined } | undefined
}

const isMissing = (error: unknown) => error instanceof GitHubRequestFailed && error.status === 404

/**
 * Writes a Run's status back to GitHub through the one throttled client: every step is idempotent (a label already
 * there or already gone, a reviewer already asked, the same comment edited again), so a retried write-back repeats
 * nothing. Returns the comment's id.
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

    /** Who added the label the Loop's `if:` reads, newest first; none when it reads no label. */
    const labeller = (repository: string, number: number, ifSource: string) =>
      Effect.gen(function* () {
        const { labellers } = yield* labelActors.actors(repository, number)
        const [label] = labelsToCheck(ifSource, [...labellers.keys()])
        return label === undefined ? undefined : labellers.get(label)?.login
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
      if (pull !== undefined) {
        if (pull.labels.length > 0) yield* moveLabels(repository, pull.number, { add: pull.labels, remove: [] })
        const logins = new Set<string>()
        for (const reviewer of pull.reviewers) {
          const login = reviewer === "labeller" ? yield* labeller(repository, number, request.ifSource) : reviewer
          if (login !== undefined) logins.add(login)
        }
        if (logins.size > 0) {
          yield* client.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", {
            ...repositoryParts(repository),
            pull_number: pull.number,
            reviewers: [...logins]
          })
        }
      }
      const c = request.comment
      return c === undefined ? c : yield* comment(repository, number, c.body, c.id)
    })

    return { apply }
  }),
  dependencies: [LabelActors.Default]
}) {}
