import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import type { UsineConfig } from "@usine/core/config/UsineConfig"

/** What a service manager needs to run `usine up` as the user: the same for systemd and launchd. */
export interface ServiceSpec {
  /** The unit's name (`usine.service`) and the agent's label (`local.usine.usine`). */
  readonly name: string
  /** Absolute: the Node that runs usine now, so a PATH without it (a service manager's) does not matter. */
  readonly node: string
  /** Absolute: usine's bin as started now (`<prefix>/bin/usine` from npm, which an upgrade keeps). */
  readonly bin: string
  readonly configFile: string
  /** The config's folder: usine.yaml's relative paths and the ledger are read from it. */
  readonly workingDirectory: string
  /** The PATH at install, so the agents' CLIs, git and bubblewrap are found as in the shell that installed it. */
  readonly path: string
  /** How long a stop may drain before the manager kills the daemon (its agent sessions stay, ADR 0014). */
  readonly stopTimeoutSeconds: number
}

/** Seconds a drain may take beyond the longest Attempt: the harvest, verify and push after the agent's last turn. */
const HARVEST_MARGIN_SECONDS = 120
/** When a Loop sets no `max_attempt_minutes` the drain has no bound of its own (RunEngine.drain): half an hour. */
const UNBOUNDED_DRAIN_SECONDS = 1800

/**
 * The drain's bound as the daemon computes it, plus a margin: the longest `max_attempt_minutes` when every Loop
 * sets one; otherwise UNBOUNDED_DRAIN_SECONDS, after which the manager's kill leaves the agent sessions running for
 * the next start to reattach.
 */
const stopTimeoutSeconds = (config: UsineConfig): number => {
  const bounds = config.loops.map((loop) => loop.maxAttemptMinutes)
  return bounds.length > 0 && bounds.every((m) => m !== undefined)
    ? Math.max(...bounds.map((m) => m ?? 0)) * 60 + HARVEST_MARGIN_SECONDS
    : UNBOUNDED_DRAIN_SECONDS
}

export const serviceSpec = (options: {
  readonly name: string
  readonly configFile: string
  readonly config: UsineConfig
  readonly node: string
  readonly bin: string
  readonly path: string
}): ServiceSpec => {
  const configFile = resolve(options.configFile)
  return {
    name: options.name,
    node: options.node,
    bin: resolve(options.bin),
    configFile,
    workingDirectory: dirname(configFile),
    path: options.path,
    stopTimeoutSeconds: stopTimeoutSeconds(options.config)
  }
}

/** `$XDG_CONFIG_HOME`, else `~/.config`, as systemd's user manager reads it. */
export const xdgConfigHome = (env: Readonly<Record<string, string | undefined>>): string =>
  env["XDG_CONFIG_HOME"] !== undefined && env["XDG_CONFIG_HOME"] !== "" ? env["XDG_CONFIG_HOME"] : join(env["HOME"] ?? homedir(), ".config")
