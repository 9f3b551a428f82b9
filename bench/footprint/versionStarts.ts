import { spawnSync } from "node:child_process"

/** One start: its wall time, and its CPU (user + system) as `/usr/bin/time` reports it, which the load does not inflate. */
interface Start {
  readonly wallMs: number
  readonly cpuMs: number
}

/** `runs` starts of a command after one warm-up start. */
export const versionStarts = (command: ReadonlyArray<string>, runs: number): ReadonlyArray<Start> => {
  const once = (): Start => {
    const started = performance.now()
    const result = spawnSync("/usr/bin/time", ["-f", "%U %S", ...command], { encoding: "utf8" })
    const wallMs = performance.now() - started
    if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${result.status}: ${result.stderr}`)
    const [user = 0, system = 0] = result.stderr.trim().split("\n").at(-1)!.split(" ").map(Number)
    return { wallMs, cpuMs: (user + system) * 1000 }
  }
  once()
  return Array.from({ length: runs }, once)
}

/** The q-quantile (nearest rank) of some figures. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}
