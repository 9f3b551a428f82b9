/**
 * Read-only views of the file's plain data before decoding, so that the rules spanning several keys can run
 * (and report) even where other parts of the file are invalid. Anything of the wrong shape reads as absent;
 * the schema reports the shape.
 */
export type Raw = unknown

export const isMap = (value: Raw): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const field = (value: Raw, key: string): Raw => (isMap(value) ? value[key] : undefined)

export const entries = (value: Raw): ReadonlyArray<readonly [string, Raw]> => (isMap(value) ? Object.entries(value) : [])

export const items = (value: Raw): ReadonlyArray<Raw> => (Array.isArray(value) ? value : [])

export const text = (value: Raw): string | undefined => (typeof value === "string" ? value : undefined)

export const has = (value: Raw, key: string): boolean => field(value, key) !== undefined
