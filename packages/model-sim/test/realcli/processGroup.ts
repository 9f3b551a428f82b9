import { readdirSync, readFileSync } from "node:fs"

/** Pids of the group's live processes (zombies excluded), read from the kernel: what a leak would leave behind. */
export const livingInGroup = (pgid: number): ReadonlyArray<number> => {
  try {
    process.kill(-pgid, 0)
  } catch {
    return []
  }
  return readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const [state, , group] = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      return Number(group) === pgid && state !== "Z" ? [Number(entry)] : []
    } catch {
      return []
    }
  })
}
