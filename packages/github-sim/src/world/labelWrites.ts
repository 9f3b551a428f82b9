import { Effect } from "effect"
import { NotFound, Unprocessable } from "./ApiError"
import { DEFAULT_LABEL_COLOR } from "./itemLabel"
import { replaceLabels } from "./issueWrites"
import type { SimItem, SimLabel } from "./SimItem"
import type { SimRepository } from "./SimRepository"
import type { SimWorld } from "./SimWorld"

/** Fields of a new catalog label. */
interface NewLabel {
  readonly name: string
  readonly color?: string | undefined
  readonly description?: string | null | undefined
}

/** Adds a label to the repository's catalog; a name already there (any case) is a 422 `already_exists`. */
export const createLabel = Effect.fn("SimWorld.createLabel")(function* (world: SimWorld, repo: SimRepository, input: NewLabel) {
  if (input.name.trim() === "") {
    return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "Label", field: "name", code: "missing_field" }] }))
  }
  if (repo.label(input.name) !== undefined) {
    return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "Label", field: "name", code: "already_exists" }] }))
  }
  const color = (input.color ?? DEFAULT_LABEL_COLOR).replace(/^#/, "").toLowerCase()
  if (!/^[0-9a-f]{6}$/.test(color)) {
    return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "Label", field: "color", code: "invalid" }] }))
  }
  const label: SimLabel = { id: world.nextId(), name: input.name, color, description: input.description ?? null, isDefault: false }
  repo.labels.set(input.name.toLowerCase(), label)
  repo.updatedAt = world.now()
  return label
})

/** Removes a label from the catalog and from every item carrying it, as GitHub does; an unknown name is a 404. */
export const deleteLabel = Effect.fn("SimWorld.deleteLabel")(function* (world: SimWorld, repo: SimRepository, name: string) {
  if (repo.label(name) === undefined) return yield* Effect.fail(new NotFound({ resource: `label ${name}` }))
  repo.labels.delete(name.toLowerCase())
  for (const item of repo.items.values()) {
    item.labels = item.labels.filter((label) => label.toLowerCase() !== name.toLowerCase())
  }
  repo.updatedAt = world.now()
})

/** Replaces the item's labels, as `actor`. */
export const setLabels = Effect.fn("SimWorld.setLabels")(function* (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem,
  names: ReadonlyArray<string>,
  actor: string
) {
  replaceLabels(world, repo, item, names, actor)
  return item
})

/** Adds labels to the item (keeping the ones it has), as `actor`. */
export const addLabels = (world: SimWorld, repo: SimRepository, item: SimItem, names: ReadonlyArray<string>, actor: string) =>
  setLabels(world, repo, item, [...item.labels, ...names], actor)

/** Removes one label from the item, as `actor`; GitHub answers 404 when the item does not carry it. */
export const removeLabel = Effect.fn("SimWorld.removeLabel")(function* (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem,
  name: string,
  actor: string
) {
  if (!item.labels.some((label) => label.toLowerCase() === name.toLowerCase())) {
    return yield* Effect.fail(new NotFound({ resource: `label ${name} on #${item.number}` }))
  }
  replaceLabels(world, repo, item, item.labels.filter((label) => label.toLowerCase() !== name.toLowerCase()), actor)
  return item
})
