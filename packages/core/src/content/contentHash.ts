import { createHash } from "node:crypto"

/** Timestamps change without the content changing; they never count. */
const VOLATILE_KEYS: ReadonlySet<string> = new Set([
  "createdAt",
  "updatedAt",
  "closedAt",
  "mergedAt",
  "submittedAt"
])

/** JSON with object keys sorted and volatile keys removed at every depth. */
export const canonicalJson = (value: unknown): string => JSON.stringify(canonicalize(value))

const canonicalize = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonicalize)
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) {
      if (VOLATILE_KEYS.has(key)) continue
      const child = (value as Record<string, unknown>)[key]
      if (child === undefined) continue
      out[key] = canonicalize(child)
    }
    return out
  }
  return value
}

/** SHA-256 (hex) of the payload's canonical JSON. */
export const contentHash = (payload: unknown): string =>
  createHash("sha256").update(canonicalJson(payload)).digest("hex")
