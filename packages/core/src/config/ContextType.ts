/**
 * The declared shape of what `if:` and `prompt:` see (`item`, `repository`): each field's type, and for the fields
 * GitHub fills from a fixed set (`kind`, `state`, `reviewDecision`, …) the values it can hold. `usine check` type-checks
 * every `if:` against it and refuses a comparison with a literal the field never holds (`item.state == "OPEN"`).
 */
export type ContextType =
  | { readonly kind: "string"; readonly values?: ReadonlyArray<string> | undefined }
  | { readonly kind: "int" }
  | { readonly kind: "bool" }
  | { readonly kind: "list"; readonly of: ContextType }
  | { readonly kind: "object"; readonly name: string; readonly fields: Readonly<Record<string, ContextType>> }

export type ObjectType = Extract<ContextType, { kind: "object" }>

export const str: ContextType = { kind: "string" }
export const int: ContextType = { kind: "int" }
export const bool: ContextType = { kind: "bool" }
export const oneOf = (...values: ReadonlyArray<string>): ContextType => ({ kind: "string", values })
export const listOf = (of: ContextType): ContextType => ({ kind: "list", of })
export const object = (name: string, fields: Readonly<Record<string, ContextType>>): ObjectType => ({
  kind: "object",
  name,
  fields
})

/** How a list of allowed values reads in a message: `open, closed, merged`, the empty string as `""`. */
export const describeValues = (values: ReadonlyArray<string>): string =>
  values.map((value) => (value === "" ? '""' : value)).join(", ")

/** The CEL type name of a declared type (`list<Comment>`). */
export const celTypeName = (type: ContextType): string =>
  type.kind === "list" ? `list<${celTypeName(type.of)}>` : type.kind === "object" ? type.name : type.kind

/** Every object type a declaration uses, innermost first: CEL needs each registered before it is named. */
export const objectTypesOf = (type: ContextType): ReadonlyArray<ObjectType> => {
  if (type.kind === "list") return objectTypesOf(type.of)
  if (type.kind !== "object") return []
  return [...Object.values(type.fields).flatMap(objectTypesOf), type]
}
