import { Effect } from "effect"
import { formatBytes } from "@usine/core/config/ByteSize"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import type { ConfinementSettings } from "./Confinement"

/** What the host offers for limits: the daemon user's uid, and its cgroups. */
interface LimitsHost {
  readonly uid: number
  /** `v2-delegated`: cgroup v2 with memory and pids, the daemon's cgroup writable; `v2`: not delegated; `v1`; `none`. */
  readonly cgroup: "v2-delegated" | "v2" | "v1" | "none"
}

const script = `id -u
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  c=$(sed -n 's/^0:://p' /proc/self/cgroup); d=/sys/fs/cgroup$c
  if [ -w "$d" ] && grep -qw memory "$d/cgroup.controllers" && grep -qw pids "$d/cgroup.controllers"; then echo v2-delegated; else echo v2; fi
elif grep -q ' cgroup ' /proc/mounts 2>/dev/null; then echo v1
else echo none
fi
`

/** Asks the Worker's host who the daemon is there and which cgroups it has. */
export const probeLimits = Effect.fn("Sandbox.probeLimits")(function* (
  transport: WorkerTransportShape
): Effect.fn.Return<LimitsHost, TransportError> {
  const probed = yield* transport.exec({ argv: ["sh", "-c", script], timeoutMs: 30_000 })
  const [uid = "", cgroup = ""] = probed.stdout.trim().split("\n")
  return {
    uid: /^\d+$/.test(uid) ? Number(uid) : -1,
    cgroup: cgroup === "v2-delegated" || cgroup === "v2" || cgroup === "v1" ? cgroup : "none"
  }
})

const cgroupNote: Record<LimitsHost["cgroup"], string> = {
  "v2-delegated": "cgroup v2 is delegated here, but usine does not use it yet",
  v2: "cgroup v2 is not delegated to usine's user here",
  v1: "this host has cgroup v1 only",
  none: "this host has no cgroups"
}

/** Who the agent is in its sandbox on that host, in words (the Workers page, `usine doctor`). */
export const describeUser = (settings: ConfinementSettings, host: LimitsHost | undefined): string =>
  host === undefined
    ? `uid ${settings.sandboxUid} when the Worker's user is root, else that user's own`
    : host.uid === 0
    ? `uid ${settings.sandboxUid} (the daemon is root there: setpriv switches to it)`
    : `the daemon's own uid ${host.uid} (not root)`

/**
 * Which mechanism enforces the limits, and the limits, in words (ADR 0084). rlimits bound each process (memory as
 * RLIMIT_DATA, CPU seconds, file size) and the processes of the agent's uid (RLIMIT_NPROC); bwrap sizes the tmpfs.
 */
export const describeLimits = (settings: ConfinementSettings, host: LimitsHost | undefined): string => {
  const { limits } = settings
  const mechanism = `rlimits by prlimit${host === undefined ? "" : ` (${cgroupNote[host.cgroup]})`}`
  return [
    `${mechanism}: memory ${formatBytes(limits.memory)} a process, ${limits.processes} processes of the agent's uid,`,
    `${limits.cpuSeconds} s CPU a process, files up to ${formatBytes(limits.disk)};`,
    `tmpfs /tmp ${formatBytes(limits.tmp)}, HOME ${formatBytes(limits.home)}; worktree up to ${formatBytes(limits.disk)} at harvest`
  ].join(" ")
}
