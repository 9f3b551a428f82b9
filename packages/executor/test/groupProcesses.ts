import * as fs from "node:fs"

/** Pids of the group's processes that still run, read straight from the kernel rather than through our code. */
export const runningInGroup = (pgid: number): Array<number> => {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return []
  }
  const pids: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
    } catch {
      continue
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(Number(entry))
  }
  return pids
}

/** Whether `kill(-pgid, 0)` finds the group. */
export const groupExists = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}
