import { Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"

/** A usine.yaml body with one Agent, compiled by the real loader. */
export const configText = (loops: ReadonlyArray<string>, extra = "") => `repositories: [acme/widgets]
agents:
  codex: {harness: codex}
${extra}loops:${loops.map((name) => `
  - name: ${name}
    on: issues
    if: '"${name}" in item.labels'
    prompt: "Work on {{ item.title }}"
    agent: codex
    approval: none`).join("")}
`

export const configOf = (loops: ReadonlyArray<string>, extra = "") =>
  Effect.runSync(parseConfig(configText(loops, extra), { env: {} }))
