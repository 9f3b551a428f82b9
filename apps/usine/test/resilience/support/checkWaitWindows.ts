import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import type { Check } from "./checkInvariants"

/** A wait GitHub imposed: it starts with the first limited answer after `installedAt` (an index in the log). */
export interface WaitWindow {
  readonly label: string
  readonly installedAt: number
  readonly limited: (request: LoggedRequest) => boolean
  /** The window's end, from the limited answer's arrival time: `Retry-After` seconds, or the quota's reset. */
  readonly until: (limitedAtMs: number) => number
}

/** Requests already on the wire when the daemon read the limited answer may land just after it. */
const IN_FLIGHT_SLACK_MS = 250

/**
 * No API request from `login` (the daemon) arrives inside a wait window (git traffic is not rate limited by the API and is
 * left out). A window whose limited answer never came is a violation too: the fault was not exercised.
 */
export const checkWaitWindows = (log: ReadonlyArray<LoggedRequest>, login: string, windows: ReadonlyArray<WaitWindow>): Check => {
  const isApi = (request: LoggedRequest) => request.login === login && !/\.git\//.test(request.path)
  const violations: Array<string> = []
  let examined = 0
  for (const window of windows) {
    const index = log.findIndex((request, i) => i >= window.installedAt && request.login === login && window.limited(request))
    const limited = log[index]
    if (limited === undefined) {
      violations.push(`${window.label}: the limited answer never came`)
      continue
    }
    const from = limited.receivedAtMs
    const until = window.until(from)
    const inside = log.filter((r, i) => i !== index && isApi(r) && r.receivedAtMs > from + IN_FLIGHT_SLACK_MS && r.receivedAtMs < until)
    examined += log.filter((r) => isApi(r) && r.receivedAtMs > from).length
    for (const r of inside) violations.push(`${window.label}: ${r.method} ${r.path} arrived ${r.receivedAtMs - from} ms into a ${until - from} ms wait`)
  }
  return { invariant: "no API request inside a wait window", checked: examined, violations }
}
