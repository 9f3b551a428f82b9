import { readFileSync } from "node:fs"

/** Linux's clock ticks per second (`getconf CLK_TCK`), 100 on every mainstream kernel build. */
const TICK_MS = 10

/** CPU and memory of one process as `/proc/<pid>` shows them now. */
export interface ProcSample {
  /** user + system CPU of the process itself. */
  readonly cpuMs: number
  /** user + system CPU of its children that exited and were reaped (git, the agent's wrapper). */
  readonly childCpuMs: number
  readonly rssMb: number
  /** The peak RSS so far (`VmHWM`). */
  readonly peakRssMb: number
}

/** Reads `/proc/<pid>/stat` and `/proc/<pid>/status`; undefined once the process is gone. */
export const procSample = (pid: number): ProcSample | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name may hold spaces: fields count from the last `)`; utime is the 14th field, so the 12th here.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).trim().split(" ").map(Number)
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0)
    return {
      cpuMs: ((fields[11] ?? 0) + (fields[12] ?? 0)) * TICK_MS,
      childCpuMs: ((fields[13] ?? 0) + (fields[14] ?? 0)) * TICK_MS,
      rssMb: kb("VmRSS") / 1024,
      peakRssMb: kb("VmHWM") / 1024
    }
  } catch {
    return undefined
  }
}
