import { join } from "node:path"
import { AgentFailure, type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { cliArgv } from "./cliArgv"
import { type Harness, MODEL_PROVIDER_KEY_VARIABLE, type ModelProvider, type StreamParser } from "./Harness"
import { arr, jsonLine, num, obj, str, type StreamEvent, unknownEventRow } from "./jsonLine"
import { modelArgs } from "./modelArgs"
import { jsonStreamParser } from "./jsonStreamParser"
import { PI_STATE_ID, PI_TASK_ID, PI_IDLE_PROBE, piChannel, piCommand, piIdleProbeId } from "./piChannel"
import { processExitFailure } from "./processExitFailure"
import { providerFailure } from "./providerFailure"
import { toolCallText } from "./toolCallText"
import { truncate } from "./truncate"
import { harnessUsageLine } from "./harnessUsageLine"

/**
 * `pi --mode rpc --no-session`: the task is a `prompt` command on stdin, and the session's wrapper keeps feeding
 * stdin with operator messages (ADR 0062) until the daemon sees Pi idle and closes it; Pi then exits. Its events are
 * those of `--mode json`, plus a `response` to each command. `PI_CODING_AGENT_DIR` lives in the Attempt's folder so
 * the user's ~/.pi is never read; `PI_OFFLINE` stops Pi's background update checks.
 */
export const PiHarness: Harness = {
  name: "pi",
  invocation: (input) => {
    const provider = input.modelProvider
    return {
      argv: [
        ...cliArgv(input.command, "pi"),
        "--mode",
        "rpc",
        "--no-session",
        ...(provider === undefined ? [] : ["--provider", PROVIDER]),
        ...modelArgs(input)
      ],
      env: {
        PI_CODING_AGENT_DIR: join(input.attemptDir, "pi-agent"),
        PI_OFFLINE: "1",
        PI_SKIP_VERSION_CHECK: "1",
        ...(provider?.apiKey === undefined ? {} : { [MODEL_PROVIDER_KEY_VARIABLE]: provider.apiKey })
      },
      stdin: `${piCommand({ id: PI_TASK_ID, type: "prompt", message: input.prompt })}${piCommand({ id: PI_STATE_ID, type: "get_state" })}`,
      files: {
        "pi-agent/settings.json": "{}\n",
        ...(provider === undefined ? {} : { "pi-agent/models.json": modelsJson(provider) })
      }
    }
  },
  parser: () => piParser(),
  exitFailure: processExitFailure,
  // Pi's own retries are bounded and reported, but they are not progress. Its silent waits (a provider's
  // retry-after honoured inside the HTTP client) print nothing at all: only the executor's stall timer sees them. Nor
  // are the answers to idle probes: a Pi that says it is busy while it runs nothing (a message left in its queue) is
  // asked again and again, and must still meet the stall limit (ADR 0093).
  isStallLine: (line) => {
    if (!line.includes("auto_retry_start") && !line.includes(PI_IDLE_PROBE)) return false
    const parsed = jsonLine(line, 0)
    if (parsed._tag !== "Event") return false
    if (parsed.event.type === "auto_retry_start") return true
    return parsed.event.type === "response" && (str(parsed.event["id"]) ?? "").startsWith(PI_IDLE_PROBE)
  },
  channel: piChannel
}

/** The provider name usine's own endpoint gets in Pi's `models.json`. */
const PROVIDER = "usine"

/**
 * Pi's `models.json` for one OpenAI-compatible endpoint, spoken as chat completions. `apiKey` names the variable
 * holding the key (Pi resolves a variable name to its value), so the key itself never lands in the file; without
 * a key, a placeholder, since Pi requires the field. Such servers know no `developer` role: Pi must send `system`.
 */
const modelsJson = (provider: ModelProvider): string =>
  `${JSON.stringify(
    {
      providers: {
        [PROVIDER]: {
          baseUrl: provider.baseUrl,
          api: "openai-completions",
          apiKey: provider.apiKey === undefined ? "no-key" : MODEL_PROVIDER_KEY_VARIABLE,
          compat: { supportsDeveloperRole: false },
          models: [{ id: provider.model }]
        }
      }
    },
    null,
    2
  )}\n`

/** Node's fetch reports a response body cut mid-stream as a bare "terminated": it is a lost connection. */
const modelFailure = (reported: string, at: number): AttemptFailure =>
  providerFailure(reported === "terminated" ? `stream disconnected before completion (${reported})` : reported, at)

const contentText = (content: unknown): string =>
  arr(content)
    .map((block) => str(obj(block)["text"]) ?? (obj(block)["type"] === "image" ? "[image]" : ""))
    .join("\n")

const piParser = (): StreamParser => {
  const total = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 }
  let failure: AttemptFailure | undefined
  let lastError: string | undefined
  // Pi prints `agent_end`, then in further writes what follows it (`auto_retry_start`, a compaction): a run that ended
  // is only a candidate for idle. The candidate's `get_state` probe is answered after everything Pi wrote with that
  // `agent_end`, so idle is its answer (not streaming, not compacting, nothing queued) with no event since.
  let ends = 0
  let probes = 0
  let candidate = false
  let idle = false
  let candidateBeforeCompaction = false
  const answered = new Set<string>()
  const ended = () => {
    ends += 1
    probes = 0
    candidate = true
    idle = false
  }
  const working = () => {
    candidate = false
    idle = false
  }

  const error = (message: string, at: number): TranscriptEntry => {
    lastError = message
    return { kind: "error", text: truncate(message), at }
  }

  const response = (e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    // usine sends no command but the task, its get_state, idle probes and operator messages, each with an id.
    const id = str(e["id"])
    if (id === undefined) return [unknownEventRow(e, at)]
    if (id === PI_STATE_ID) return [{ kind: "system", text: `pi session ${str(obj(e["data"])["sessionId"]) ?? "?"}`, at }]
    answered.add(id)
    if (id.startsWith(PI_IDLE_PROBE)) {
      const state = obj(e["data"])
      const settled = state["isStreaming"] === false && state["isCompacting"] === false && num(state["pendingMessageCount"]) === 0
      if (id !== piIdleProbeId(ends, probes) || !candidate) return []
      // Busy by its own account though it printed nothing since (its run still winding down): ask again.
      if (settled) idle = true
      else probes += 1
      return []
    }
    const reason = str(e["error"]) ?? "refused"
    if (id === PI_TASK_ID) {
      if (e["success"] === true) return []
      ended()
      failure = new AgentFailure({ reason: "pi refused the task", evidence: reason })
      return [error(`pi refused the task: ${reason}`, at)]
    }
    if (e["success"] !== true) return [{ kind: "system", text: truncate(`pi refused the operator's message: ${reason}`), at }]
    // Taken while idle, it starts a new run: the session is not done.
    working()
    return [{ kind: "system", text: "pi accepted the operator's message", at }]
  }

  const assistant = (message: Readonly<Record<string, unknown>>, at: number): ReadonlyArray<TranscriptEntry> => {
    const rows = arr(message["content"]).flatMap((raw): ReadonlyArray<TranscriptEntry> => {
      const block = obj(raw)
      switch (block["type"]) {
        case "text":
          return [{ kind: "assistant", text: truncate(str(block["text"]) ?? ""), at }]
        case "thinking":
          return [{ kind: "system", text: truncate(`thinking: ${str(block["thinking"]) ?? ""}`), at }]
        case "toolCall":
          return [{ kind: "tool_call", tool: str(block["name"]) ?? "?", text: toolCallText(block["arguments"]), at }]
        default:
          return [unknownEventRow(block, at)]
      }
    })
    const u = obj(message["usage"])
    const cached = num(u["cacheRead"])
    total.inputTokens += num(u["input"]) + cached + num(u["cacheWrite"])
    total.cachedInputTokens += cached
    total.outputTokens += num(u["output"])
    total.costUsd += num(obj(u["cost"])["total"])
    const usage: Usage = { ...total }
    rows.push({ kind: "usage", text: harnessUsageLine(usage), usage, at })
    const stop = message["stopReason"]
    if (stop === "error") {
      const reported = str(message["errorMessage"]) ?? "the model request failed"
      failure = modelFailure(reported, at)
      rows.push(error(reported, at))
    } else if (stop === "aborted") {
      const reported = str(message["errorMessage"]) ?? "the agent's turn was aborted"
      failure = new InfraFailure({ reason: "the agent's turn was aborted before it finished", evidence: reported })
      rows.push(error(reported, at))
    } else {
      failure = undefined
    }
    return rows
  }

  const event = (e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    switch (e.type) {
      case "session":
        return [{ kind: "system", text: `pi session ${str(e["id"]) ?? "?"}`, at }]
      // Partial and duplicate views of what message_end and tool_execution_end report once, complete.
      case "agent_start":
        working()
        return []
      case "agent_end":
        ended()
        return []
      case "response":
        return response(e, at)
      case "turn_start":
      case "turn_end":
      case "message_start":
      case "message_update":
      case "tool_execution_start":
      case "tool_execution_update":
      case "queue_update":
        return []
      case "message_end": {
        const message = obj(e["message"])
        return message["role"] === "assistant" ? assistant(message, at) : []
      }
      case "tool_execution_end": {
        const text = truncate(contentText(obj(e["result"])["content"]))
        const tool = str(e["toolName"]) ?? "?"
        return [{ kind: "tool_result", tool, text: e["isError"] === true ? `error: ${text}` : text, at }]
      }
      case "auto_retry_start": {
        working()
        failure = undefined
        const reason = str(e["errorMessage"]) ?? ""
        const text = `retrying (attempt ${num(e["attempt"])} of ${num(e["maxAttempts"])}, in ${Math.round(num(e["delayMs"]) / 1000)} s) after: ${reason}`
        return [{ kind: "system", text: truncate(text), at }]
      }
      case "auto_retry_end": {
        if (e["success"] === true) return [{ kind: "system", text: "retry succeeded", at }]
        const reported = str(e["finalError"]) ?? "retries exhausted"
        // Pi's last word on the run: nothing it may still do (a compaction) serves a session that failed.
        working()
        idle = true
        failure = modelFailure(reported, at)
        return [error(reported, at)]
      }
      case "compaction_start":
        candidateBeforeCompaction = candidate || idle
        working()
        return [{ kind: "system", text: `compacting context (${str(e["reason"]) ?? "?"})`, at }]
      case "compaction_end":
        if (e["willRetry"] !== true && candidateBeforeCompaction) ended()
        return [{ kind: "system", text: `context compacted${e["aborted"] === true ? " (aborted)" : ""}`, at }]
      case "extension_error":
        return [error(`extension ${str(e["extensionPath"]) ?? "?"}: ${str(e["error"]) ?? ""}`, at)]
      default:
        return [unknownEventRow(e, at)]
    }
  }

  return {
    ...jsonStreamParser(event, { failure: () => failure, lastError: () => lastError }),
    idle: () => idle,
    idleProbe: () => {
      if (!candidate || idle) return undefined
      const id = piIdleProbeId(ends, probes)
      return { id, line: piCommand({ id, type: "get_state" }) }
    },
    answered: () => answered
  }
}
