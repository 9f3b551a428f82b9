/**
 * Every string of a view passes through the redactor, whatever field it sits in: a secret can reach the ledger in a
 * task, a failure's evidence, a transcript row or an issue title, and none may reach a page.
 */
export const redactDeep = <A>(redact: (text: string) => string, value: A): A => walk(redact, value) as A

const walk = (redact: (text: string) => string, value: unknown): unknown => {
  if (typeof value === "string") return redact(value)
  if (Array.isArray(value)) return value.map((item) => walk(redact, item))
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) out[key] = walk(redact, child)
    return out
  }
  return value
}
