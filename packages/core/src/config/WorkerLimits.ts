import { Schema } from "effect"
import { ByteSize } from "./ByteSize"
import { PositiveInt } from "./ConfigScalars"

const GiB = 1024 ** 3

/** What every sandbox of a Worker gets unless `workers.<name>.limits` says otherwise: a dev box survives them. */
export const DEFAULT_LIMITS = {
  memory: 4 * GiB,
  processes: 512,
  cpuSeconds: 3600,
  tmp: 1 * GiB,
  home: 1 * GiB,
  disk: 10 * GiB
} as const

/**
 * The resources one sandbox may use (ADR 0084): `memory` per process (cgroup `memory.max` for the whole sandbox where
 * the host delegates cgroup v2), `processes` at once, `cpu` seconds per process, the tmpfs sizes of /tmp and HOME,
 * and `disk`, the worktree's size checked before harvest and the largest file the agent may write.
 */
export const WorkerLimits = Schema.Struct({
  memory: Schema.optionalWith(ByteSize, { default: () => DEFAULT_LIMITS.memory }),
  processes: Schema.optionalWith(PositiveInt, { default: () => DEFAULT_LIMITS.processes }),
  cpuSeconds: Schema.optionalWith(PositiveInt, { default: () => DEFAULT_LIMITS.cpuSeconds }).pipe(Schema.fromKey("cpu_seconds")),
  tmp: Schema.optionalWith(ByteSize, { default: () => DEFAULT_LIMITS.tmp }),
  home: Schema.optionalWith(ByteSize, { default: () => DEFAULT_LIMITS.home }),
  disk: Schema.optionalWith(ByteSize, { default: () => DEFAULT_LIMITS.disk })
})
export type WorkerLimits = typeof WorkerLimits.Type
