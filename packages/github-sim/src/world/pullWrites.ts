import { Effect } from "effect"
import { Unprocessable } from "./ApiError"
import { recordEvent, updateIssue, validTitle } from "./issueWrites"
import type { SimItem, SimPull, SimReview } from "./SimItem"
import type { SimRepository } from "./SimRepository"
import type { SimWorld } from "./SimWorld"
import { newItem } from "./newItem"

/** A new pull request; the caller resolved both branches in the bare repository (undefined: missing). */
interface NewPull {
  readonly title: string
  readonly body?: string | null
  readonly head: string
  readonly headSha: string | undefined
  readonly base: string
  readonly baseSha: string | undefined
  readonly draft?: boolean
}

/** Fields a pull request update may change. */
interface PullPatch {
  readonly title?: string
  readonly body?: string | null
  readonly state?: "open" | "closed"
  readonly base?: string
}

/** Merge state the control API sets (GitHub computes these; the emulator is told). */
interface MergeState {
  readonly mergeable?: boolean | null
  readonly mergeableState?: string
  readonly reviewDecision?: SimPull["reviewDecision"]
}

const invalid = (field: string) => new Unprocessable({ errors: [{ resource: "PullRequest", field, code: "invalid" }] })
const custom = (message: string) => new Unprocessable({ errors: [{ resource: "PullRequest", code: "custom", message }] })

/** `owner:branch` or `branch` to the branch name; heads in forks are not emulated. */
export const headBranch = (repo: SimRepository, head: string): string | undefined => {
  const colon = head.indexOf(":")
  if (colon < 0) return head
  return head.slice(0, colon).toLowerCase() === repo.owner.toLowerCase() ? head.slice(colon + 1) : undefined
}

/** Opens a pull request, refusing what GitHub refuses: unknown branches, an open duplicate, no commits. */
export const createPull = Effect.fn("SimWorld.createPull")(function* (
  world: SimWorld,
  repo: SimRepository,
  author: string,
  input: NewPull
) {
  yield* validTitle("PullRequest", input.title)
  const head = headBranch(repo, input.head)
  if (head === undefined || input.headSha === undefined) return yield* Effect.fail(invalid("head"))
  if (input.baseSha === undefined) return yield* Effect.fail(invalid("base"))
  if (repo.openPullForHead(head) !== undefined) {
    return yield* Effect.fail(custom(`A pull request already exists for ${repo.owner}:${head}.`))
  }
  if (input.headSha === input.baseSha) return yield* Effect.fail(custom(`No commits between ${input.base} and ${head}`))
  const pull: SimPull = {
    head,
    headSha: input.headSha,
    base: input.base,
    baseSha: input.baseSha,
    draft: input.draft ?? false,
    merged: false,
    mergedAt: null,
    mergedBy: null,
    mergeCommitSha: null,
    mergeable: true,
    mergeableState: "clean",
    reviewDecision: null,
    reviews: []
  }
  const item = newItem(world, repo, { title: input.title, body: input.body, author, pull })
  repo.items.set(item.number, item)
  repo.updatedAt = item.createdAt
  return item
})

/** Updates title, body, state or base, as `actor`. */
export const updatePull = Effect.fn("SimWorld.updatePull")(function* (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem,
  actor: string,
  patch: PullPatch,
  baseSha?: string
) {
  const pull = item.pull
  if (pull === undefined) return item
  if (patch.state === "open" && pull.merged) return yield* Effect.fail(custom("Cannot reopen a merged pull request"))
  if (patch.base !== undefined) {
    if (baseSha === undefined) return yield* Effect.fail(invalid("base"))
    pull.base = patch.base
    pull.baseSha = baseSha
  }
  const issuePatch = {
    ...(patch.title === undefined ? {} : { title: patch.title }),
    ...(patch.body === undefined ? {} : { body: patch.body }),
    ...(patch.state === undefined ? {} : { state: patch.state })
  }
  return yield* updateIssue(world, repo, item, actor, issuePatch)
})

/** Marks the pull request merged by `actor` (the caller moved the base branch if it could). */
export const markMerged = Effect.fn("SimWorld.markMerged")(function* (world: SimWorld, item: SimItem, actor: string) {
  const pull = item.pull
  if (pull === undefined || item.state !== "open") {
    return yield* Effect.fail(new Unprocessable({ errors: [], summary: "Pull Request is not mergeable" }))
  }
  pull.merged = true
  pull.mergedAt = world.now()
  pull.mergedBy = actor
  pull.mergeCommitSha = pull.headSha
  pull.mergeable = null
  pull.mergeableState = "unknown"
  item.state = "closed"
  item.closedAt = pull.mergedAt
  item.closedBy = actor
  recordEvent(world, item, { event: "merged", actor, commitId: pull.headSha })
  recordEvent(world, item, { event: "closed", actor, commitId: pull.headSha })
  return item
})

/** Sets what GitHub would compute: mergeability and review decision. */
export const setMergeState = (world: SimWorld, item: SimItem, state: MergeState): void => {
  const pull = item.pull
  if (pull === undefined) return
  if (state.mergeable !== undefined) pull.mergeable = state.mergeable
  if (state.mergeableState !== undefined) pull.mergeableState = state.mergeableState
  if (state.reviewDecision !== undefined) pull.reviewDecision = state.reviewDecision
  item.updatedAt = world.now()
}

/** Records a submitted review. */
export const addReview = (world: SimWorld, item: SimItem, review: Omit<SimReview, "id" | "submittedAt">): SimReview | undefined => {
  if (item.pull === undefined) return undefined
  const stored = { ...review, id: world.nextId(), submittedAt: world.now() }
  item.pull.reviews.push(stored)
  item.updatedAt = stored.submittedAt
  return stored
}

/** After a push: open pull requests follow their head branch, and a moved head bumps `updated_at`. */
export const followBranches = (world: SimWorld, repo: SimRepository, branches: ReadonlyMap<string, string>): void => {
  for (const item of repo.items.values()) {
    const pull = item.pull
    if (pull === undefined || item.state !== "open") continue
    const head = branches.get(pull.head)
    const base = branches.get(pull.base)
    if (base !== undefined) pull.baseSha = base
    if (head !== undefined && head !== pull.headSha) {
      pull.headSha = head
      item.updatedAt = world.now()
    }
  }
  repo.pushedAt = world.now()
}
