import { randomUUID } from "node:crypto"
import { codexThreadId } from "./codexAppServer"
import type { TurnInterrupt } from "./Harness"
import { jsonLine, obj, str } from "./jsonLine"

/** The JSON-RPC ids of usine's `turn/interrupt` requests begin with it (the parser tells them from operator messages). */
export const CODEX_INTERRUPT_PREFIX = "usine-interrupt-"

/** A `turn/started` or `turn/completed` notification's method and turn, if the line is one. */
const turnEvent = (line: string): { readonly method: string; readonly id: string; readonly status: string | undefined } | undefined => {
  const parsed = jsonLine(line, 0)
  if (parsed._tag !== "Event") return undefined
  const method = str(parsed.event["method"])
  if (method !== "turn/started" && method !== "turn/completed") return undefined
  const turn = obj(obj(parsed.event["params"])["turn"])
  const id = str(turn["id"])
  return id === undefined ? undefined : { method, id, status: str(turn["status"]) }
}

/**
 * Codex's app-server ends a turn on `turn/interrupt {threadId, turnId}` (ADR 0101): it answers `{}` and reports the
 * turn `turn/completed` with status `interrupted`, its tool call in progress ended. The turn in progress is the last
 * `turn/started` whose `turn/completed` has not come.
 */
export const codexInterrupt: TurnInterrupt = {
  marker: `"method":"turn/`,
  request: (lines, session) => {
    const completed = new Set<string>()
    let running: string | undefined
    for (const line of lines) {
      const event = turnEvent(line)
      if (event === undefined) continue
      if (event.method === "turn/completed") completed.add(event.id)
      else running = event.id
    }
    if (running === undefined || completed.has(running)) return undefined
    const id = `${CODEX_INTERRUPT_PREFIX}${randomUUID()}`
    const params = { threadId: codexThreadId(session.attemptDir), turnId: running }
    return { id, turnId: running, line: `${JSON.stringify({ id, method: "turn/interrupt", params })}\n` }
  },
  ended: (line, turnId) => {
    const event = turnEvent(line)
    return event?.method === "turn/completed" && event.id === turnId ? (event.status ?? "completed") : undefined
  }
}
