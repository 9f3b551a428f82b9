import { AgentFailure, type AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { CODEX_TASK_ID, CODEX_THREAD_ID } from "./codexAppServer"
import { CODEX_INTERRUPT_PREFIX } from "./codexInterrupt"
import { codexExecParser, HIGH_DEMAND } from "./codexExecParser"
import type { StreamParser } from "./Harness"
import { arr, jsonLine, num, obj, str, type StreamEvent, unknownEventRow } from "./jsonLine"
import { providerFailure } from "./providerFailure"
import { truncate } from "./truncate"
import { codexErrorRows } from "./codexErrorRows"
import { announceOnce, commandRows, fileChangeRows, mcpToolRows } from "./codexToolRows"
import { harnessUsageLine } from "./harnessUsageLine"

type Fields = Readonly<Record<string, unknown>>

/** Notifications that say nothing a transcript needs (streaming deltas, status flips, bookkeeping). */
const QUIET = new Set([
  "thread/started",
  "thread/status/changed",
  "thread/readState/changed",
  "thread/goal/cleared",
  "thread/settings/updated",
  "thread/environment/connected",
  "thread/name/updated",
  "account/rateLimits/updated",
  "remoteControl/status/changed",
  "mcpServer/startupStatus/updated",
  "serverRequest/resolved",
  "skills/changed",
  "turn/diff/updated",
  "hook/started",
  "hook/completed",
  "item/reasoning/summaryPartAdded",
  "rawResponseItem/completed",
  "rawResponse/completed"
])

const isDelta = (method: string): boolean => /(?:Delta|\/delta)$/.test(method)

/** The text of a reasoning item: its summary when there is one, else its content. */
const reasoningText = (item: Fields): string => {
  const summary = arr(item["summary"]).filter((s): s is string => typeof s === "string")
  const content = arr(item["content"]).filter((s): s is string => typeof s === "string")
  return (summary.length > 0 ? summary : content).join("\n")
}

/** The kind of one file change (`{ type: "add" | "delete" | "update" }`). */
const changeKind = (kind: unknown): string => str(obj(kind)["type"]) ?? str(kind) ?? "change"

/**
 * The parser of `codex app-server`'s stdout (JSON-RPC, ADR 0062): answers to usine's requests (the thread, the task,
 * each operator message by its id), and notifications (`turn/*`, `item/*`, token usage, errors) mapped to the rows
 * `codex exec --json` gave. Lines with a `type` are `exec` events (a session started before the app-server) and go to
 * `codexExecParser`. Idle once a turn completed and no message was taken since.
 */
export const codexAppServerParser = (): StreamParser => {
  const exec = codexExecParser()
  const announced = new Set<string>()
  const answered = new Set<string>()
  let total: Usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }
  let failure: AttemptFailure | undefined
  const errors = codexErrorRows()
  let lastPlan: string | undefined
  let idle = false

  const error = errors.row

  const plan = (text: string, at: number): ReadonlyArray<TranscriptEntry> => {
    if (text === lastPlan) return []
    lastPlan = text
    return [{ kind: "system", text: truncate(`plan:\n${text}`), at }]
  }

  const response = (id: string, e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    const refused = "error" in e ? (str(obj(e["error"])["message"]) ?? "refused") : undefined
    switch (id) {
      case CODEX_THREAD_ID:
      case CODEX_TASK_ID:
      case "usine-init": {
        if (refused === undefined) {
          if (id !== CODEX_THREAD_ID) return []
          return [{ kind: "system", text: `codex thread ${str(obj(obj(e["result"])["thread"])["id"]) ?? "?"} started`, at }]
        }
        // Nothing runs without its thread or its task: the session is over once its input is closed.
        idle = true
        failure = new AgentFailure({ reason: "codex refused to start the session", evidence: truncate(refused, 4096) })
        return [error(`codex refused ${id === CODEX_TASK_ID ? "the task" : id === CODEX_THREAD_ID ? "the thread" : "initialize"}: ${refused}`, at)]
      }
      default:
        if (id.startsWith(CODEX_INTERRUPT_PREFIX)) {
          return [{ kind: "system", text: refused === undefined ? "codex was asked to end its turn" : truncate(`codex refused to end its turn: ${refused}`), at }]
        }
        answered.add(id)
        if (refused !== undefined) return [{ kind: "system", text: truncate(`codex refused the operator's message: ${refused}`), at }]
        idle = false
        return [{ kind: "system", text: "codex took the operator's message", at }]
    }
  }

  const item = (completed: boolean, it: Fields, at: number): ReadonlyArray<TranscriptEntry> => {
    const call = announceOnce(announced, str(it["id"]) ?? "", at)
    switch (it["type"]) {
      case "userMessage":
        return []
      case "agentMessage":
        return completed ? [{ kind: "assistant", text: truncate(str(it["text"]) ?? ""), at }] : []
      case "reasoning": {
        const text = reasoningText(it)
        return completed && text !== "" ? [{ kind: "system", text: truncate(`reasoning: ${text}`), at }] : []
      }
      case "plan":
        return completed ? plan(str(it["text"]) ?? "", at) : []
      case "commandExecution":
        return commandRows(call, completed, { command: it["command"], exitCode: it["exitCode"], output: str(it["aggregatedOutput"]) }, at)
      case "fileChange": {
        const changes = arr(it["changes"]).map((c) => `${changeKind(obj(c)["kind"])} ${str(obj(c)["path"]) ?? "?"}`)
        return fileChangeRows(call, completed, changes, it["status"] === "failed", at)
      }
      case "mcpToolCall":
        return mcpToolRows(call, completed, it, at)
      case "webSearch":
        return completed ? call("web_search", str(it["query"]) ?? "") : []
      default:
        return completed ? [unknownEventRow(it, at)] : []
    }
  }

  const turnCompleted = (turn: Fields, at: number): ReadonlyArray<TranscriptEntry> => {
    idle = true
    const snapshot: Usage = { ...total }
    const usage: TranscriptEntry = { kind: "usage", text: harnessUsageLine(snapshot), usage: snapshot, at }
    const message = str(obj(turn["error"])["message"])
    switch (turn["status"]) {
      case "failed": {
        const text = message ?? "turn failed"
        failure = providerFailure(HIGH_DEMAND.test(text) ? `${text} (the model provider is overloaded)` : text, at)
        return [error(text, at), usage]
      }
      case "interrupted":
        return [{ kind: "system", text: `codex turn interrupted${message === undefined ? "" : `: ${message}`}`, at }, usage]
      default:
        return [usage]
    }
  }

  const notification = (method: string, params: Fields, at: number): ReadonlyArray<TranscriptEntry> => {
    switch (method) {
      case "turn/started":
        idle = false
        return []
      case "turn/completed":
        return turnCompleted(obj(params["turn"]), at)
      case "thread/tokenUsage/updated": {
        const t = obj(obj(params["tokenUsage"])["total"])
        total = { inputTokens: num(t["inputTokens"]), outputTokens: num(t["outputTokens"]), cachedInputTokens: num(t["cachedInputTokens"]) }
        return []
      }
      case "item/started":
      case "item/completed":
        return item(method === "item/completed", obj(params["item"]), at)
      case "turn/plan/updated":
        return plan(
          arr(params["plan"])
            .map((s) => `[${obj(s)["status"] === "completed" ? "x" : " "}] ${str(obj(s)["step"]) ?? ""}`)
            .join("\n"),
          at
        )
      case "error":
        // Codex repeats the same retry message until it gives up (or forever): one row is enough.
        return errors.event(str(obj(params["error"])["message"]) ?? "", at)
      case "warning":
      case "configWarning":
      case "deprecationNotice":
      case "guardianWarning":
        return [{ kind: "system", text: truncate(`codex ${method}: ${str(params["message"]) ?? str(params["summary"]) ?? JSON.stringify(params)}`), at }]
      default:
        return QUIET.has(method) || isDelta(method) ? [] : [unknownEventRow({ method, params }, at)]
    }
  }

  const line = (raw: string, at: number): ReadonlyArray<TranscriptEntry> => {
    const parsed = jsonLine(raw, at)
    if (parsed._tag === "Rows") return parsed.rows
    const e = parsed.event
    if (typeof e.type === "string") return exec.line(raw, at)
    const method = str(e["method"])
    const id = typeof e["id"] === "number" ? String(e["id"]) : str(e["id"])
    // A request from Codex (an approval, a question): with approvals off none should come, and stdin cannot answer it.
    if (method !== undefined && id !== undefined) return [error(`codex asked ${method}, which usine does not answer`, at)]
    if (method !== undefined) return notification(method, obj(e["params"]), at)
    if (id !== undefined) return response(id, e, at)
    return [unknownEventRow(e, at)]
  }

  return {
    line,
    failure: () => failure ?? exec.failure(),
    lastError: () => errors.last() ?? exec.lastError?.(),
    idle: () => idle,
    answered: () => answered
  }
}
