import type { SimItem, SimPull } from "./SimItem"
import type { SimRepository } from "./SimRepository"
import type { SimWorld } from "./SimWorld"

/**
 * A new open issue, or pull request when `pull` is given, numbered in `repo`'s sequence and stamped now; not yet
 * stored. A pull request gets a `pullId` of its own, as on GitHub.
 */
export const newItem = (
  world: SimWorld,
  repo: SimRepository,
  fields: {
    readonly title: string
    readonly body: string | null | undefined
    readonly author: string
    readonly assignees?: ReadonlyArray<string> | undefined
    readonly pull?: SimPull
  }
): SimItem => {
  const at = world.now()
  return {
    id: world.nextId(),
    pullId: fields.pull === undefined ? 0 : world.nextId(),
    number: repo.nextNumber(),
    title: fields.title,
    body: fields.body ?? null,
    lastEdit: null,
    state: "open",
    stateReason: null,
    author: fields.author,
    labels: [],
    assignees: [...(fields.assignees ?? [])],
    comments: [],
    events: [],
    createdAt: at,
    updatedAt: at,
    closedAt: null,
    closedBy: null,
    locked: false,
    ...(fields.pull === undefined ? {} : { pull: fields.pull })
  }
}
