import { Brand } from "effect"

/** `["github", "<owner/name>", number]` as JSON, repository lowercased; a schedule Item drops the number. */
export type ItemKey = string & Brand.Brand<"ItemKey">
export const ItemKey = Brand.nominal<ItemKey>()

/** The key of an issue or pull request. */
export const itemKeyOf = (repository: string, number: number): ItemKey =>
  ItemKey(JSON.stringify(["github", repository.toLowerCase(), number]))

/** The key of a schedule Tick's Item: the repository alone. */
export const scheduleItemKeyOf = (repository: string): ItemKey =>
  ItemKey(JSON.stringify(["github", repository.toLowerCase()]))

/** Reads a key back; `undefined` for anything that is not one. */
export const parseItemKey = (
  key: ItemKey
): { readonly repository: string; readonly number: number | undefined } | undefined => {
  const value: unknown = JSON.parse(key)
  if (!Array.isArray(value) || value[0] !== "github" || typeof value[1] !== "string") return undefined
  const number = value[2]
  return { repository: value[1], number: typeof number === "number" ? number : undefined }
}
