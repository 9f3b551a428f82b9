import { Effect } from "effect"
import { fastForward, listBranches } from "../git/BareRepository"
import { isPull, pullJson } from "../rest/json/pullJson"
import type { NotFound } from "../world/ApiError"
import { closeReferencedIssues } from "../world/closingKeywords"
import { createPull, headBranch, markMerged, setMergeState, addReview, updatePull } from "../world/pullWrites"
import type { SimItem, SimPull } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import type { SimControl } from "./SimControl"

type PullIn = (full: string, number: number) => Effect.Effect<{ readonly repo: SimRepository; readonly item: SimItem & { readonly pull: SimPull } }, NotFound>

/** The pull-request half of the control surface. */
export const pullControl = (
  world: SimWorld,
  repoIn: (full: string) => Effect.Effect<SimRepository, NotFound>,
  pullIn: PullIn
): Pick<SimControl, "createPullRequest" | "mergePullRequest" | "closePullRequest" | "setMergeState" | "addReview"> => ({
  createPullRequest: Effect.fn("GitHubSim.createPullRequest")(function* (input) {
    const repo = yield* repoIn(input.repo)
    const branches = yield* listBranches(repo.gitDir)
    const base = input.base ?? repo.defaultBranch
    const head = headBranch(repo, input.head)
    const author = input.author ?? repo.owner
    const item = yield* createPull(world, repo, author, {
      title: input.title,
      body: input.body ?? null,
      head: input.head,
      headSha: head === undefined ? undefined : branches.get(head),
      base,
      baseSha: branches.get(base),
      draft: input.draft ?? false
    })
    if (!isPull(item)) return yield* Effect.die("created pull request has no pull half")
    return pullJson(world, repo, item, author)
  }),

  mergePullRequest: Effect.fn("GitHubSim.mergePullRequest")(function* (input) {
    const { repo, item } = yield* pullIn(input.repo, input.number)
    const actor = input.actor ?? repo.owner
    yield* fastForward(repo.gitDir, item.pull.base, item.pull.headSha)
    yield* markMerged(world, item, actor)
    yield* closeReferencedIssues(world, repo, item, actor)
    return pullJson(world, repo, item, actor)
  }),

  closePullRequest: Effect.fn("GitHubSim.closePullRequest")(function* (input) {
    const { repo, item } = yield* pullIn(input.repo, input.number)
    const actor = input.actor ?? repo.owner
    yield* updatePull(world, repo, item, actor, { state: "closed" })
    return pullJson(world, repo, item, actor)
  }),

  setMergeState: Effect.fn("GitHubSim.setMergeState")(function* ({ repo: full, number, ...state }) {
    const { repo, item } = yield* pullIn(full, number)
    setMergeState(world, item, state)
    return pullJson(world, repo, item, repo.owner)
  }),

  addReview: Effect.fn("GitHubSim.addReview")(function* (input) {
    const { item } = yield* pullIn(input.repo, input.number)
    addReview(world, item, { author: input.author, state: input.state, body: input.body ?? "" })
  })
})
