import { Effect, Layer } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { GitHubClient } from "@usine/github/GitHubClient"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import { GitHubTriggerCondition } from "@usine/triggers/GitHubTriggerCondition"
import { LoopControl } from "@usine/triggers/LoopControl"
import { ObserveItem } from "@usine/triggers/ObserveItem"
import { PollFailures } from "@usine/triggers/PollFailures"
import { TriggerConfig, type TriggerSettings } from "@usine/triggers/TriggerConfig"
import { ConfigState } from "../ConfigState"
import { derivedSnapshot } from "../daemon/derivedSnapshot"

/** The part of usine.yaml the triggers read. */
const triggerSettingsOf = (config: UsineConfig): TriggerSettings => ({
  repositories: config.repositories,
  loops: config.loops,
  labels: config.labels,
  pollInterval: config.pollInterval
})

/** The triggers' settings as of now: each cycle asks for the Loops, repositories and labels in force. */
const LiveTriggerConfig = Layer.effect(
  TriggerConfig,
  Effect.map(ConfigState, (state) => ({ current: derivedSnapshot(state.unsafeGet, triggerSettingsOf) }))
)

/**
 * The one GitHub client, the triggers' settings and controls, the poll failure list, and the engine's re-check of a
 * queued Event's `if:` (read through the same observe path as polling).
 */
export const GitHubLayer = (options: { readonly token: GitHubCredential; readonly apiUrl: string }) =>
  GitHubTriggerCondition.pipe(
    Layer.provideMerge(ObserveItem.Default),
    Layer.provideMerge(
      Layer.mergeAll(
        GitHubClient.Default({ token: options.token, apiUrl: options.apiUrl }),
        LiveTriggerConfig,
        LoopControl.layerLedger,
        PollFailures.Default
      )
    )
  )
