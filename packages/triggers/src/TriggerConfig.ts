import { Context, type Duration, Layer } from "effect"
import type { CompiledLoop, ItemLoop, ScheduleLoop } from "@usine/core/config/CompiledLoop"
import type { LabelConfig } from "@usine/core/config/LabelConfig"
import type { ItemKind } from "./ItemFields"

/** The part of usine.yaml the triggers read. */
export interface TriggerSettings {
  /** Every registered repository is polled, even one without an active Loop: the Board reads the projection. */
  readonly repositories: ReadonlyArray<string>
  readonly loops: ReadonlyArray<CompiledLoop>
  readonly labels: ReadonlyArray<LabelConfig>
  readonly pollInterval: Duration.Duration
}

/**
 * The triggers' settings as of now: each caller asks `current()` at the moment it acts (a poll cycle, a webhook, a
 * schedule's wake), so a reload of usine.yaml reaches the next one; never kept across actions (ADR 0029).
 */
export class TriggerConfig extends Context.Tag("usine/TriggerConfig")<TriggerConfig, { readonly current: () => TriggerSettings }>() {
  /** Settings that never change: for tests and tools. */
  static readonly fixed = (settings: TriggerSettings): Layer.Layer<TriggerConfig> => Layer.succeed(TriggerConfig, { current: () => settings })
}

const sameRepository = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** The unpaused issue and pull request Loops whose selector picks the repository. */
export const activeItemLoops = (
  settings: TriggerSettings,
  repository: string,
  paused: ReadonlySet<string>
): ReadonlyArray<ItemLoop> =>
  settings.loops.filter(
    (loop): loop is ItemLoop =>
      loop.on !== "schedule" && !paused.has(loop.name) && loop.repositories.some((r) => sameRepository(r, repository))
  )

/** The Loops of an Item's stream: issue Loops for an issue, pull request Loops for a pull request. */
export const loopsOfStream = (loops: ReadonlyArray<ItemLoop>, kind: ItemKind): ReadonlyArray<ItemLoop> =>
  loops.filter((loop) => (kind === "issue" ? loop.on === "issues" : loop.on === "pull_requests"))

/** The unpaused schedule Loops. */
export const activeScheduleLoops = (settings: TriggerSettings, paused: ReadonlySet<string>): ReadonlyArray<ScheduleLoop> =>
  settings.loops.filter((loop): loop is ScheduleLoop => loop.on === "schedule" && !paused.has(loop.name))

/** Names the set of active Loops of a repository; a change (a pause, an unpause) restarts its poll from scratch. */
export const loopSignatureOf = (loops: ReadonlyArray<ItemLoop>): string =>
  JSON.stringify(loops.map((loop) => loop.name).sort())
