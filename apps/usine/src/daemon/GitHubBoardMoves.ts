import { Effect, Layer } from "effect"
import { BoardMoveFailed, BoardMoves } from "@usine/board/BoardMoves"
import { GitHubClient } from "@usine/github/GitHubClient"
import { GitHubRequestFailed, GitHubUnauthorized } from "@usine/github/GitHubError"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { repositoryParts } from "@usine/github/repositoryParts"

/** A card move: the column labels are swapped on GitHub, then polling reads the Item again through a Hint. */
export const GitHubBoardMoves: Layer.Layer<BoardMoves, never, GitHubClient | PollingTriggers> = Layer.effect(
  BoardMoves,
  Effect.gen(function* () {
    const client = yield* GitHubClient
    const triggers = yield* PollingTriggers
    return BoardMoves.of({
      move: (repository, number, fromLabel, toLabel) =>
        Effect.gen(function* () {
          const target = { ...repositoryParts(repository), issue_number: number }
          if (fromLabel !== undefined) {
            yield* client
              .request("DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}", { ...target, name: fromLabel })
              .pipe(Effect.catchIf((e) => e instanceof GitHubRequestFailed && e.status === 404, () => Effect.void))
          }
          yield* client.request("POST /repos/{owner}/{repo}/issues/{issue_number}/labels", { ...target, labels: [toLabel] })
          yield* triggers.hint({ repository, number })
        }).pipe(
          Effect.mapError((error) =>
            new BoardMoveFailed({
              repository,
              number,
              detail: error.message,
              ...(error instanceof GitHubRequestFailed
                ? { githubStatus: error.status }
                : error instanceof GitHubUnauthorized ? { githubStatus: 401 } : {})
            })
          ),
          Effect.withSpan("BoardMoves.move")
        )
    })
  })
)
