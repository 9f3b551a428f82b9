import type { AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import type { StreamParser } from "./Harness"
import { arr, num, obj, str, type StreamEvent, unknownEventRow } from "./jsonLine"
import { jsonStreamParser } from "./jsonStreamParser"
import { providerFailure } from "./providerFailure"
import { toolCallText } from "./toolCallText"
import { truncate } from "./truncate"
import { harnessUsageLine } from "./harnessUsageLine"

/** What Codex prints instead of the provider's own answer once a 5xx has outlasted its retries. */
export const HIGH_DEMAND = /currently experiencing high demand/i

/**
 * The parser of `codex exec --json`'s events (`thread.started`, `item.completed`, `turn.completed`...): the stream of
 * sessions started before Codex ran as an app-server, and the shape `codexAppServerParser` hands such lines to.
 */
export const codexExecParser = (): StreamParser => {
  const total = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }
  const announced = new Set<string>()
  let failure: AttemptFailure | undefined
  let lastError: string | undefined
  let lastErrorEvent: string | undefined
  let lastPlan: string | undefined

  const error = (message: string, at: number): TranscriptEntry => {
    lastError = message
    return { kind: "error", text: truncate(message), at }
  }

  const item = (phase: string, it: Readonly<Record<string, unknown>>, at: number): ReadonlyArray<TranscriptEntry> => {
    const id = str(it["id"]) ?? ""
    const completed = phase === "item.completed"
    const call = (tool: string, text: string): ReadonlyArray<TranscriptEntry> => {
      if (announced.has(id)) return []
      announced.add(id)
      return [{ kind: "tool_call", tool, text, at }]
    }
    switch (it["type"]) {
      case "agent_message":
        return completed ? [{ kind: "assistant", text: truncate(str(it["text"]) ?? ""), at }] : []
      case "reasoning":
        return completed ? [{ kind: "system", text: truncate(`reasoning: ${str(it["text"]) ?? ""}`), at }] : []
      case "command_execution": {
        const rows = [...call("shell", toolCallText({ command: it["command"] }))]
        if (!completed) return rows
        const exitCode = it["exit_code"]
        const output = str(it["aggregated_output"]) ?? ""
        const suffix = typeof exitCode === "number" && exitCode !== 0 ? `\n[exit code ${exitCode}]` : ""
        return [...rows, { kind: "tool_result", tool: "shell", text: `${truncate(output)}${suffix}`, at }]
      }
      case "file_change": {
        if (!completed) return []
        const changes = arr(it["changes"]).map((c) => `${str(obj(c)["kind"]) ?? "change"} ${str(obj(c)["path"]) ?? "?"}`)
        const rows = [...call("apply_patch", truncate(changes.join("\n")))]
        return it["status"] === "failed" ? [...rows, { kind: "tool_result", tool: "apply_patch", text: "patch failed", at }] : rows
      }
      case "mcp_tool_call": {
        const tool = `${str(it["server"]) ?? "mcp"}.${str(it["tool"]) ?? "?"}`
        const rows = [...call(tool, toolCallText(it["arguments"] ?? {}))]
        if (!completed) return rows
        const failed = str(obj(it["error"])["message"])
        const text = failed ?? toolCallText(it["result"] ?? "")
        return [...rows, { kind: "tool_result", tool, text: failed === undefined ? text : `error: ${text}`, at }]
      }
      case "web_search":
        return completed ? call("web_search", str(it["query"]) ?? "") : []
      case "todo_list": {
        const plan = arr(it["items"])
          .map((t) => `[${obj(t)["completed"] === true ? "x" : " "}] ${str(obj(t)["text"]) ?? ""}`)
          .join("\n")
        if (plan === lastPlan) return []
        lastPlan = plan
        return [{ kind: "system", text: truncate(`plan:\n${plan}`), at }]
      }
      case "error":
        return completed ? [error(str(it["message"]) ?? "", at)] : []
      default:
        return completed ? [unknownEventRow(it, at)] : []
    }
  }

  const event = (e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    switch (e.type) {
      case "thread.started":
        return [{ kind: "system", text: `codex thread ${str(e["thread_id"]) ?? "?"} started`, at }]
      case "turn.started":
        return []
      case "turn.completed": {
        const usage = obj(e["usage"])
        total.inputTokens += num(usage["input_tokens"])
        total.cachedInputTokens += num(usage["cached_input_tokens"])
        total.outputTokens += num(usage["output_tokens"])
        const snapshot: Usage = { ...total }
        return [{ kind: "usage", text: harnessUsageLine(snapshot), usage: snapshot, at }]
      }
      case "turn.failed": {
        const message = str(obj(e["error"])["message"]) ?? "turn failed"
        failure = providerFailure(HIGH_DEMAND.test(message) ? `${message} (the model provider is overloaded)` : message, at)
        return [error(message, at)]
      }
      case "error": {
        const message = str(e["message"]) ?? ""
        // Codex repeats the same retry message until it gives up (or forever): one row is enough.
        if (message === lastErrorEvent) return []
        lastErrorEvent = message
        return [error(message, at)]
      }
      case "item.started":
      case "item.updated":
      case "item.completed":
        return item(e.type, obj(e["item"]), at)
      default:
        return [unknownEventRow(e, at)]
    }
  }

  return jsonStreamParser(event, { failure: () => failure, lastError: () => lastError })
}
