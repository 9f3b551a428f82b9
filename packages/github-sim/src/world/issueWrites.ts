import { Effect } from "effect"
import { NotFound, Unprocessable } from "./ApiError"
import { DEFAULT_LABEL_COLOR, itemLabel } from "./itemLabel"
import type { SimComment, SimEvent, SimItem } from "./SimItem"
import type { SimRepository } from "./SimRepository"
import type { SimWorld } from "./SimWorld"
import { newItem } from "./newItem"

/** Fields of a new issue. */
interface NewIssue {
  readonly title: string
  readonly body?: string | null
  readonly labels?: ReadonlyArray<string>
  readonly assignees?: ReadonlyArray<string>
  readonly state?: "open" | "closed"
}

/** Fields an issue update may change. */
interface IssuePatch {
  readonly title?: string
  readonly body?: string | null
  readonly state?: "open" | "closed"
  readonly stateReason?: "completed" | "not_planned" | "reopened" | null
  readonly labels?: ReadonlyArray<string>
  readonly assignees?: ReadonlyArray<string>
}

/** The item numbered `number` (issue or pull request). */
export const findItem = (repo: SimRepository, number: number): Effect.Effect<SimItem, NotFound> => {
  const item = repo.items.get(number)
  return item === undefined ? Effect.fail(new NotFound({ resource: `issue ${repo.fullName}#${number}` })) : Effect.succeed(item)
}

/** Records an event on the item and bumps its `updated_at`. */
export const recordEvent = (world: SimWorld, item: SimItem, event: Omit<SimEvent, "id" | "createdAt">): void => {
  const at = world.now()
  item.events.push({ ...event, id: world.nextId(), createdAt: at })
  item.updatedAt = at
}

/** Labels unknown to the catalog are created with GitHub's default colour, as the issues API does. */
const ensureLabel = (world: SimWorld, repo: SimRepository, name: string) => {
  const existing = repo.label(name)
  if (existing !== undefined) return existing
  const label = { id: world.nextId(), name, color: DEFAULT_LABEL_COLOR, description: null, isDefault: false }
  repo.labels.set(name.toLowerCase(), label)
  return label
}

/** Sets the item's labels to exactly `names`, recording labeled and unlabeled events by `actor`. */
export const replaceLabels = (world: SimWorld, repo: SimRepository, item: SimItem, names: ReadonlyArray<string>, actor: string) => {
  const wanted = names.map((name) => ensureLabel(world, repo, name).name)
  const unique = wanted.filter((name, i) => wanted.findIndex((other) => other.toLowerCase() === name.toLowerCase()) === i)
  const has = (list: ReadonlyArray<string>, name: string) => list.some((other) => other.toLowerCase() === name.toLowerCase())
  for (const name of item.labels) {
    if (!has(unique, name)) recordEvent(world, item, { event: "unlabeled", actor, label: labelRef(repo, name) })
  }
  for (const name of unique) {
    if (!has(item.labels, name)) recordEvent(world, item, { event: "labeled", actor, label: labelRef(repo, name) })
  }
  item.labels = unique
  item.updatedAt = world.now()
}

const labelRef = (repo: SimRepository, name: string) => ({ name, color: itemLabel(repo, name).color })

/** GitHub's 422 for a blank title; an absent one (an update that keeps it) passes. */
export const validTitle = (resource: "Issue" | "PullRequest", title: string | undefined) =>
  title === undefined || title.trim() !== ""
    ? Effect.void
    : Effect.fail(new Unprocessable({ errors: [{ resource, field: "title", code: "missing_field" }] }))

/** Opens a new issue authored by `author`. */
export const createIssue = Effect.fn("SimWorld.createIssue")(function* (
  world: SimWorld,
  repo: SimRepository,
  author: string,
  input: NewIssue
) {
  yield* validTitle("Issue", input.title)
  const item = newItem(world, repo, { title: input.title, body: input.body, author, assignees: input.assignees })
  repo.items.set(item.number, item)
  if (input.labels !== undefined) replaceLabels(world, repo, item, input.labels, author)
  if (input.state === "closed") setState(world, item, "closed", null, author)
  return item
})

const setState = (
  world: SimWorld,
  item: SimItem,
  state: "open" | "closed",
  reason: SimItem["stateReason"] | undefined,
  actor: string
) => {
  if (item.state === state) return
  item.state = state
  item.stateReason = state === "closed" ? (reason ?? "completed") : "reopened"
  item.closedAt = state === "closed" ? world.now() : null
  item.closedBy = state === "closed" ? actor : null
  recordEvent(world, item, { event: state === "closed" ? "closed" : "reopened", actor })
}

/** Applies an issue update by `actor`; every write bumps `updated_at`. */
export const updateIssue = Effect.fn("SimWorld.updateIssue")(function* (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem,
  actor: string,
  patch: IssuePatch
) {
  yield* validTitle("Issue", patch.title)
  if (patch.title !== undefined && patch.title !== item.title) {
    recordEvent(world, item, { event: "renamed", actor })
    item.title = patch.title
  }
  if (patch.body !== undefined && patch.body !== item.body) {
    item.body = patch.body
    item.lastEdit = { at: world.now(), editor: actor }
  }
  if (patch.assignees !== undefined) item.assignees = [...patch.assignees]
  if (patch.labels !== undefined) replaceLabels(world, repo, item, patch.labels, actor)
  if (patch.state !== undefined) setState(world, item, patch.state, patch.stateReason, actor)
  item.updatedAt = world.now()
  repo.updatedAt = item.updatedAt
  return item
})

/** Adds a comment by `author`; it bumps the item's `updated_at`. */
export const addComment = Effect.fn("SimWorld.addComment")(function* (
  world: SimWorld,
  item: SimItem,
  author: string,
  body: string
) {
  if (body.trim() === "") {
    return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "IssueComment", field: "body", code: "missing_field" }] }))
  }
  const at = world.now()
  const comment: SimComment = { id: world.nextId(), body, author, createdAt: at, updatedAt: at }
  item.comments.push(comment)
  item.updatedAt = at
  return comment
})
