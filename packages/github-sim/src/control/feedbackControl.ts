import { Effect } from "effect"
import { NotFound } from "../world/ApiError"
import type { SimCheck } from "../world/SimFeedback"
import type { SimItem, SimPull } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import type { SimControl } from "./SimControl"

type PullIn = (full: string, number: number) => Effect.Effect<{ readonly repo: SimRepository; readonly item: SimItem & { readonly pull: SimPull } }, NotFound>

/** CI results and inline review threads: what a pull request's feedback Loops read. */
export const feedbackControl = (
  world: SimWorld,
  repoIn: (full: string) => Effect.Effect<SimRepository, NotFound>,
  pullIn: PullIn
): Pick<SimControl, "addCheckRun" | "addCommitStatus" | "addReviewThread"> => {
  /** The commit named by `sha`, or the head of pull request `number`; a change on a pull request bumps its `updated_at`. */
  const commitOf = (full: string, sha: string | undefined, number: number | undefined) =>
    Effect.gen(function* () {
      if (number !== undefined) {
        const { repo, item } = yield* pullIn(full, number)
        return { repo, sha: item.pull.headSha }
      }
      if (sha === undefined) return yield* Effect.fail(new NotFound({ resource: "a commit: give sha or number" }))
      return { repo: yield* repoIn(full), sha }
    })

  const record = (repo: SimRepository, sha: string, check: Omit<SimCheck, "id" | "createdAt">) => {
    const stored: SimCheck = { ...check, id: world.nextId(), createdAt: world.now() }
    const list = repo.checks.get(sha) ?? []
    // GitHub keeps the newest status per context; a check run of the same name is a new run.
    const kept = check.kind === "status" ? list.filter((c) => !(c.kind === "status" && c.name === check.name)) : list
    repo.checks.set(sha, [...kept, stored])
    for (const item of repo.items.values()) {
      if (item.pull?.headSha === sha) item.updatedAt = stored.createdAt
    }
    return { id: stored.id, sha }
  }

  return {
    addCheckRun: Effect.fn("GitHubSim.addCheckRun")(function* (input) {
      const { repo, sha } = yield* commitOf(input.repo, input.sha, input.number)
      const status = input.status ?? (input.conclusion === undefined ? "queued" : "completed")
      return record(repo, sha, {
        kind: "check_run",
        name: input.name,
        status,
        conclusion: status === "completed" ? input.conclusion ?? "success" : null,
        url: input.detailsUrl ?? `${world.baseUrl}/${repo.fullName}/runs/${world.nextId()}`
      })
    }),

    addCommitStatus: Effect.fn("GitHubSim.addCommitStatus")(function* (input) {
      const { repo, sha } = yield* commitOf(input.repo, input.sha, input.number)
      return record(repo, sha, {
        kind: "status",
        name: input.context,
        status: input.state === "pending" ? "in_progress" : "completed",
        conclusion: input.state,
        url: input.targetUrl ?? null
      })
    }),

    addReviewThread: Effect.fn("GitHubSim.addReviewThread")(function* (input) {
      const { item } = yield* pullIn(input.repo, input.number)
      const at = world.now()
      const thread = {
        id: world.nextId(),
        path: input.path,
        line: input.line ?? null,
        resolved: input.resolved ?? false,
        comments: [{ id: world.nextId(), body: input.body, author: input.author, createdAt: at }]
      }
      item.pull.reviewThreads = [...(item.pull.reviewThreads ?? []), thread]
      item.updatedAt = at
      return { id: thread.id }
    })
  }
}
