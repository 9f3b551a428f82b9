/**
 * One entry of a written usine.yaml's `loops:`: a Loop on open issues labelled `ready-for-agent` (and `labels`),
 * whose prompt hands the agent the issue itself. `keys` are the Loop's other lines (`agent: codex`, comments too).
 */
export const issueLoopYaml = (loop: {
  readonly name: string
  readonly labels?: ReadonlyArray<string>
  /** What the agent is to do with the issue: the prompt's first word. */
  readonly verb: string
  /** A paragraph the prompt ends with, after the issue's body. */
  readonly closing?: string
  readonly keys: ReadonlyArray<string>
}): string => {
  const wanted = ["ready-for-agent", ...(loop.labels ?? [])].map((label) => `"${label}" in item.labels && `).join("")
  return [
    `  - name: ${loop.name}`,
    "    on: issues",
    `    if: '${wanted}item.state == "open"'`,
    "    prompt: |",
    `      ${loop.verb} issue #{{ item.number }} of {{ repository }}: {{ item.title }}`,
    "",
    "      {{ item.body }}",
    ...(loop.closing === undefined ? [] : ["", `      ${loop.closing}`]),
    ...loop.keys.map((key) => `    ${key}`)
  ].join("\n")
}
