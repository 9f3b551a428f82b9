import { readdirSync, readFileSync, readlinkSync } from "node:fs"

interface OurProcess {
  readonly pid: number
  readonly cwd: string
  readonly cmdline: string
}

const read = (read: () => string): string => {
  try {
    return read()
  } catch {
    return ""
  }
}

/** A zombie has exited: it holds nothing but its exit status until its parent reaps it. */
const isZombie = (pid: number): boolean => /^\d+ \(.*\) Z /.test(read(() => readFileSync(`/proc/${pid}/stat`, "utf8")))

/**
 * Every live process on this machine whose working directory or command line is under `dir` (the test's folder):
 * what usine started there (agent sessions, git, verify commands) and anything those started.
 */
export const processesUnder = (dir: string): ReadonlyArray<OurProcess> =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .flatMap((name) => {
      const pid = Number(name)
      const cwd = read(() => readlinkSync(`/proc/${pid}/cwd`))
      const cmdline = read(() => readFileSync(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ").trim()
      const ours = cwd === dir || cwd.startsWith(`${dir}/`) || cmdline.includes(dir)
      return ours && !isZombie(pid) ? [{ pid, cwd, cmdline }] : []
    })

/** Whether a process still runs (and is not a zombie). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  return !isZombie(pid)
}
