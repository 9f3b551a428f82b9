import { Effect, Layer, type Redacted } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { GitHubClient } from "@usine/github/GitHubClient"
import { GitHubTriggerCondition } from "@usine/github/GitHubTriggerCondition"
import { LoopControl } from "@usine/github/LoopControl"
import { ObserveItem } from "@usine/github/ObserveItem"
import { PollFailures } from "@usine/github/PollFailures"
import { TriggerConfig, type TriggerSettings } from "@usine/github/TriggerConfig"
import { ConfigState } from "../ConfigState"
import { liveView } from "../daemon/liveView"

/** The part of usine.yaml the triggers read. */
export const triggerSettingsOf = (config: UsineConfig): TriggerSettings => ({
  repositories: config.repositories,
  loops: config.loops,
  labels: config.labels,
  pollInterval: config.pollInterval
})

/** The triggers' settings as a live view: each cycle reads the Loops, repositories and labels in force. */
const LiveTriggerConfig = Layer.effect(
  TriggerConfig,
  Effect.map(ConfigState, (state) => liveView(state.unsafeGet, triggerSettingsOf))
)

/**
 * The one GitHub client, the triggers' settings and controls, the poll failure list, and the engine's re-check of a
 * queued Event's `if:` (read through the same observe path as polling).
 */
export const GitHubLayer = (options: { readonly token: Redacted.Redacted<string>; readonly apiUrl: string }) =>
  GitHubTriggerCondition.pipe(
    Layer.provideMerge(ObserveItem.Default),
    Layer.provideMerge(
      Layer.mergeAll(
        GitHubClient.Default({ token: options.token, apiUrl: options.apiUrl }),
        LiveTriggerConfig,
        LoopControl.layerRunStore,
        PollFailures.Default
      )
    )
  )
