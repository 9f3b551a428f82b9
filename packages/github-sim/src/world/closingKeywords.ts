import { Effect } from "effect"
import { updateIssue } from "./issueWrites"
import type { SimItem } from "./SimItem"
import type { SimRepository } from "./SimRepository"
import type { SimWorld } from "./SimWorld"
import { withoutCode } from "./withoutCode"

// GitHub's closing keywords, each followed by an issue of the same repository: `Closes #4`, `fixes: acme/widgets#4`.
const KEYWORD = /\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+(?:([\w.-]+\/[\w.-]+))?#(\d+)\b/gi

/** The issue numbers of this repository a pull request's body closes when it merges; code names none. */
const closedByBody = (repo: SimRepository, body: string | null): ReadonlyArray<number> => {
  const numbers = new Set<number>()
  for (const match of withoutCode(body ?? "").matchAll(KEYWORD)) {
    const [, full, number] = match
    if (full === undefined || full.toLowerCase() === repo.fullName.toLowerCase()) numbers.add(Number(number))
  }
  return [...numbers]
}

/**
 * As GitHub does once a pull request merges into the default branch: each open issue its body names after a closing
 * keyword is closed as completed, by the one who merged. Pull requests named so are left alone.
 */
export const closeReferencedIssues = Effect.fn("SimWorld.closeReferencedIssues")(function* (
  world: SimWorld,
  repo: SimRepository,
  pull: SimItem,
  actor: string
) {
  if (pull.pull === undefined || !pull.pull.merged || pull.pull.base !== repo.defaultBranch) return []
  const closed: Array<number> = []
  for (const number of closedByBody(repo, pull.body)) {
    const issue = repo.items.get(number)
    if (issue === undefined || issue.pull !== undefined || issue.state !== "open") continue
    yield* updateIssue(world, repo, issue, actor, { state: "closed", stateReason: "completed" })
    closed.push(number)
  }
  return closed
})
