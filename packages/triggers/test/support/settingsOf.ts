import { Duration, Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import type { TriggerSettings } from "@usine/triggers/TriggerConfig"

/** The trigger settings of a usine.yaml body (agents and workers supplied), compiled by the real config loader. */
export const settingsOf = (body: string, pollInterval = Duration.seconds(30)): TriggerSettings => {
  const text = `agents:\n  codex:\n    harness: codex\n${body}`
  const config = Effect.runSync(parseConfig(text, { env: {} }))
  return { repositories: config.repositories, loops: config.loops, labels: config.labels, pollInterval }
}
