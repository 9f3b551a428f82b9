/** One problem found in a usine.yaml, before it is placed on a line and column. */
export interface ConfigIssue {
  /** Keys and indices from the document root, as the user wrote them (snake_case). */
  readonly path: ReadonlyArray<string | number>
  readonly message: string
  /** `key` points at the key itself (an unknown key); `value` at its value, or at the nearest parent that exists. */
  readonly at: "key" | "value"
}

export const issueAt = (path: ReadonlyArray<string | number>, message: string): ConfigIssue => ({
  path,
  message,
  at: "value"
})

/** Renders a path as users read it: `loops[2].if`, `agents.codex.env[0]`. */
export const formatPath = (path: ReadonlyArray<string | number>): string =>
  path
    .map((segment, index) =>
      typeof segment === "number" ? `[${segment}]` : index === 0 ? segment : `.${segment}`
    )
    .join("")
