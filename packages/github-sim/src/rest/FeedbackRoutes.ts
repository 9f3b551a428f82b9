import { Effect } from "effect"
import type { Hono } from "hono"
import { listBranches } from "../git/BareRepository"
import { NotFound } from "../world/ApiError"
import { findItem } from "../world/issueWrites"
import { isoSeconds } from "../world/SimClock"
import type { SimCheck } from "../world/SimFeedback"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { userJson } from "./json/userJson"
import { numberParam, run, type ApiContext, type ApiEnv } from "./route"

const checkRunJson = (check: SimCheck, sha: string) => ({
  id: check.id,
  head_sha: sha,
  name: check.name,
  status: check.status,
  conclusion: check.conclusion,
  details_url: check.url,
  html_url: check.url,
  started_at: isoSeconds(check.createdAt),
  completed_at: check.status === "completed" ? isoSeconds(check.createdAt) : null
})

/** CI results and review comments over REST, as GitHub serves them: check runs, combined status, review comments. */
export const feedbackRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  const repoOf = (c: ApiContext) => world.visibleRepository(c.get("user"), c.req.param("owner")!, c.req.param("repo")!)
  /** A ref (branch name) or a commit sha. */
  const shaOf = (repo: SimRepository, ref: string) =>
    Effect.map(Effect.orDie(listBranches(repo.gitDir)), (branches) => branches.get(ref) ?? ref)

  app.get("/repos/:owner/:repo/commits/:ref/check-runs", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const sha = yield* shaOf(repo, c.req.param("ref"))
      const runs = (repo.checks.get(sha) ?? []).filter((check) => check.kind === "check_run")
      return c.json({ total_count: runs.length, check_runs: runs.map((check) => checkRunJson(check, sha)) })
    }))
  )

  app.get("/repos/:owner/:repo/commits/:ref/status", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const sha = yield* shaOf(repo, c.req.param("ref"))
      const statuses = (repo.checks.get(sha) ?? []).filter((check) => check.kind === "status")
      const states = statuses.map((s) => s.conclusion ?? "pending")
      const state = states.some((s) => s === "failure" || s === "error")
        ? "failure"
        : states.length === 0 || states.some((s) => s === "pending")
        ? "pending"
        : "success"
      return c.json({
        state,
        sha,
        total_count: statuses.length,
        statuses: statuses.map((s) => ({ id: s.id, context: s.name, state: s.conclusion ?? "pending", target_url: s.url, created_at: isoSeconds(s.createdAt) }))
      })
    }))
  )

  app.get("/repos/:owner/:repo/pulls/:number/comments", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const item = yield* findItem(repo, yield* numberParam(c, "number"))
      if (item.pull === undefined) return yield* Effect.fail(new NotFound({ resource: `pull ${repo.fullName}#${item.number}` }))
      return c.json((item.pull.reviewThreads ?? []).flatMap((thread) =>
        thread.comments.map((comment) => ({
          id: comment.id,
          path: thread.path,
          line: thread.line,
          body: comment.body,
          user: userJson(world, comment.author),
          author_association: world.association(comment.author, repo),
          created_at: isoSeconds(comment.createdAt),
          html_url: `${world.baseUrl}/${repo.fullName}/pull/${item.number}#discussion_r${comment.id}`
        }))))
    }))
  )
}
