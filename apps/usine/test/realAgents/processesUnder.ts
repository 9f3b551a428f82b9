import { readdirSync, readFileSync, readlinkSync } from "node:fs"

/** A live process, as the kernel shows it. */
interface LiveProcess {
  readonly pid: number
  readonly cwd: string
  readonly command: string
}

const live = (pid: string): LiveProcess | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return undefined
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim()
    return { pid: Number(pid), cwd: readlinkSync(`/proc/${pid}/cwd`), command }
  } catch {
    return undefined // gone meanwhile, or not ours to read
  }
}

/**
 * Every live process (zombies excluded) working in `folder` or naming it on its command line: an agent CLI, its
 * tools' children, a session wrapper. Read from /proc, so nothing usine reports about itself is trusted here.
 */
export const processesUnder = (folder: string): ReadonlyArray<LiveProcess> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((entry) => {
      const found = live(entry)
      return found !== undefined && (found.cwd.startsWith(folder) || found.command.includes(folder)) ? [found] : []
    })
