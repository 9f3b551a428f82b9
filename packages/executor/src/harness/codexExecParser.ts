import type { AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import type { StreamParser } from "./Harness"
import { arr, num, obj, str, type StreamEvent, unknownEventRow } from "./jsonLine"
import { jsonStreamParser } from "./jsonStreamParser"
import { providerFailure } from "./providerFailure"
import { truncate } from "./truncate"
import { codexErrorRows } from "./codexErrorRows"
import { announceOnce, commandRows, fileChangeRows, mcpToolRows } from "./codexToolRows"
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
  const errors = codexErrorRows()
  let lastPlan: string | undefined

  const error = errors.row

  const item = (phase: string, it: Readonly<Record<string, unknown>>, at: number): ReadonlyArray<TranscriptEntry> => {
    const completed = phase === "item.completed"
    const call = announceOnce(announced, str(it["id"]) ?? "", at)
    switch (it["type"]) {
      case "agent_message":
        return completed ? [{ kind: "assistant", text: truncate(str(it["text"]) ?? ""), at }] : []
      case "reasoning":
        return completed ? [{ kind: "system", text: truncate(`reasoning: ${str(it["text"]) ?? ""}`), at }] : []
      case "command_execution":
        return commandRows(call, completed, { command: it["command"], exitCode: it["exit_code"], output: str(it["aggregated_output"]) }, at)
      case "file_change": {
        const changes = arr(it["changes"]).map((c) => `${str(obj(c)["kind"]) ?? "change"} ${str(obj(c)["path"]) ?? "?"}`)
        return fileChangeRows(call, completed, changes, it["status"] === "failed", at)
      }
      case "mcp_tool_call":
        return mcpToolRows(call, completed, it, at)
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
      case "error":
        // Codex repeats the same retry message until it gives up (or forever): one row is enough.
        return errors.event(str(e["message"]) ?? "", at)
      case "item.started":
      case "item.updated":
      case "item.completed":
        return item(e.type, obj(e["item"]), at)
      default:
        return [unknownEventRow(e, at)]
    }
  }

  return jsonStreamParser(event, { failure: () => failure, lastError: errors.last })
}
