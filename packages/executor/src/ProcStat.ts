import { Option } from "effect"

/** The fields of Linux's `/proc/<pid>/stat` that tell a process apart and place it in its group. */
export interface ProcStat {
  readonly pid: number
  /** `R`, `S`, `D`, `Z` (zombie: exited, not reaped), `T`, ... */
  readonly state: string
  readonly pgid: number
  /** Clock ticks since boot; with the pid it names one process for the host's uptime, surviving pid reuse. */
  readonly startTime: string
}

/** Parses one `/proc/<pid>/stat` line; the command name may hold spaces and parentheses, so fields count from the last `)`. */
export const parseProcStat = (line: string): Option.Option<ProcStat> => {
  const close = line.lastIndexOf(")")
  const pid = Number.parseInt(line, 10)
  if (close < 0 || !Number.isInteger(pid)) return Option.none()
  const fields = line.slice(close + 2).trim().split(" ")
  const state = fields[0]
  const pgid = Number(fields[2])
  const startTime = fields[19]
  if (state === undefined || !Number.isInteger(pgid) || startTime === undefined) return Option.none()
  return Option.some({ pid, state, pgid, startTime })
}

/** Parses the concatenation of many stat files (one process per line). */
export const parseProcStats = (text: string): ReadonlyArray<ProcStat> =>
  text.split("\n").flatMap((line) => Option.toArray(parseProcStat(line)))

/** A process that still runs: a zombie has exited and only waits for its parent. */
export const isRunning = (stat: ProcStat): boolean => stat.state !== "Z" && stat.state !== "X"
