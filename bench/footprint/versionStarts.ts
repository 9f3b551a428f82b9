import { spawnSync } from "node:child_process"

/** Wall times of `runs` starts of a command, in ms, after one warm-up start. */
export const versionStarts = (command: ReadonlyArray<string>, runs: number): ReadonlyArray<number> => {
  const [file = process.execPath, ...args] = command
  const once = () => {
    const started = performance.now()
    const result = spawnSync(file, args, { encoding: "utf8" })
    const ms = performance.now() - started
    if (result.status !== 0) throw new Error(`${command.join(" ")} exited ${result.status}: ${result.stderr}`)
    return ms
  }
  once()
  return Array.from({ length: runs }, once)
}

/** The q-quantile (nearest rank) of some figures. */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}
