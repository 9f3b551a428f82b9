import { isoSeconds } from "../world/SimClock"
import type { SimCheck, SimReviewThread } from "../world/SimFeedback"
import type { SimItem, SimPull } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { actorNode } from "./actorNode"
import { connection, type ConnectionArgs } from "./connection"

const checkNode = (check: SimCheck) =>
  check.kind === "check_run"
    ? {
        __typename: "CheckRun",
        id: `CR_sim${check.id}`,
        databaseId: check.id,
        name: check.name,
        status: check.status.toUpperCase(),
        conclusion: check.conclusion === null ? null : check.conclusion.toUpperCase(),
        detailsUrl: check.url,
        url: check.url,
        startedAt: isoSeconds(check.createdAt),
        completedAt: check.status === "completed" ? isoSeconds(check.createdAt) : null
      }
    : {
        __typename: "StatusContext",
        id: `SC_sim${check.id}`,
        context: check.name,
        state: (check.conclusion ?? "pending").toUpperCase(),
        targetUrl: check.url,
        description: null,
        createdAt: isoSeconds(check.createdAt)
      }

const rollupState = (checks: ReadonlyArray<SimCheck>) => {
  const bad = new Set(["failure", "error", "timed_out", "cancelled", "action_required", "stale"])
  if (checks.some((c) => c.conclusion !== null && bad.has(c.conclusion))) return "FAILURE"
  if (checks.some((c) => c.status !== "completed")) return "PENDING"
  return "SUCCESS"
}

const threadNode = (world: SimWorld, repo: SimRepository, item: SimItem, thread: SimReviewThread) => ({
  __typename: "PullRequestReviewThread",
  id: `PRRT_sim${thread.id}`,
  isResolved: thread.resolved,
  isOutdated: false,
  path: thread.path,
  line: thread.line,
  comments: (args: ConnectionArgs) =>
    connection(
      "comments",
      thread.comments.map((comment) => ({
        __typename: "PullRequestReviewComment",
        id: `PRRC_sim${comment.id}`,
        databaseId: comment.id,
        body: comment.body,
        bodyText: comment.body,
        path: thread.path,
        author: actorNode(world, comment.author),
        authorAssociation: world.association(comment.author, repo),
        createdAt: isoSeconds(comment.createdAt),
        url: `${world.baseUrl}/${repo.fullName}/pull/${item.number}#discussion_r${comment.id}`
      })),
      args
    )
})

/**
 * A pull request's CI and inline review feedback, as GitHub serves them: `commits(last: 1)` to the head commit and its
 * `statusCheckRollup` (check runs and commit statuses), and `reviewThreads`.
 */
export const feedbackFields = (world: SimWorld, repo: SimRepository, item: SimItem, pull: SimPull) => ({
  commits: (args: ConnectionArgs) => {
    const checks = repo.checks.get(pull.headSha) ?? []
    const commit = {
      __typename: "Commit",
      id: `C_sim${pull.headSha}`,
      oid: pull.headSha,
      statusCheckRollup:
        checks.length === 0
          ? null
          : {
              __typename: "StatusCheckRollup",
              id: `SCR_sim${pull.headSha}`,
              state: rollupState(checks),
              contexts: (contextArgs: ConnectionArgs) => connection("contexts", checks.map(checkNode), contextArgs)
            }
    }
    return connection("commits", [{ __typename: "PullRequestCommit", id: `PRC_sim${pull.headSha}`, commit }], args)
  },
  reviewThreads: (args: ConnectionArgs) =>
    connection("reviewThreads", (pull.reviewThreads ?? []).map((thread) => threadNode(world, repo, item, thread)), args)
})
