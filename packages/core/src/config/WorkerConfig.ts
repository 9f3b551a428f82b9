import { Schema } from "effect"
import { Name, NonEmptyString, PositiveInt } from "./ConfigScalars"
import { DEFAULT_LIMITS, WorkerLimits } from "./WorkerLimits"

/** `bubblewrap`: every agent and `verify` command in its own namespaces; `none`: as the daemon's user, unconfined. */
export const WorkerSandbox = Schema.Literal("bubblewrap", "none")
export type WorkerSandbox = typeof WorkerSandbox.Type

/** A machine that runs Attempts: this one, or one reached over ssh. */
export const WorkerConfig = Schema.Struct({
  type: Schema.optionalWith(Schema.Literal("local", "ssh"), { default: () => "local" as const }),
  /** For ssh: a host name, `user@host`, or an alias of the ssh configuration. */
  host: Schema.optional(NonEmptyString),
  maxConcurrentAttempts: Schema.optionalWith(PositiveInt, { default: () => 1 }).pipe(
    Schema.fromKey("max_concurrent_attempts")
  ),
  /** Where workspaces live on that machine; `~` is that machine's home. */
  root: Schema.optionalWith(NonEmptyString, { default: () => "~/.usine/workspaces" }),
  /** The Agents this Worker can run; absent means all. */
  agents: Schema.optional(Schema.Array(Name)),
  /** How agents and `verify` commands are confined on it (ADR 0054); `none` is warned at every start. */
  sandbox: Schema.optionalWith(WorkerSandbox, { default: () => "bubblewrap" as const }),
  /** The uid and gid the agent runs as when the daemon is root (ADR 0084): `nobody` unless set. */
  sandboxUid: Schema.optionalWith(PositiveInt, { default: () => 65534 }).pipe(Schema.fromKey("sandbox_uid")),
  /** What one sandbox may use (ADR 0084). */
  limits: Schema.optionalWith(WorkerLimits, { default: () => ({ ...DEFAULT_LIMITS }) })
})
export type WorkerConfig = typeof WorkerConfig.Type
