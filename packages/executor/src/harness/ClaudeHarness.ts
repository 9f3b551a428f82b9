import { join } from "node:path"
import { AgentFailure, type AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { CLAUDE_TASK_UUID, claudeChannel, claudeUserLine, replayedUuid } from "./claudeChannel"
import { cliArgv } from "./cliArgv"
import type { Harness, ModelProvider, StreamParser } from "./Harness"
import { arr, jsonLine, num, obj, str, type StreamEvent, unknownEventRow } from "./jsonLine"
import { modelArgs } from "./modelArgs"
import { jsonStreamParser } from "./jsonStreamParser"
import { processExitFailure } from "./processExitFailure"
import { providerFailure } from "./providerFailure"
import { toolCallText } from "./toolCallText"
import { truncate } from "./truncate"
import { harnessUsageLine } from "./harnessUsageLine"

/**
 * What every Claude Code session of usine gets (ADR 0064). The agent works unattended in a disposable worktree,
 * normally inside the Worker's sandbox, and the push guards check what it did: `IS_SANDBOX=1` says so to the CLI,
 * which otherwise refuses `--dangerously-skip-permissions` to root (a CI container, a Worker run as root). No
 * update, telemetry or other background traffic: the sandbox lets the agent reach its model endpoint only.
 */
const UNATTENDED: Readonly<Record<string, string>> = {
  IS_SANDBOX: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1"
}

/** Claude Code's config folder for a provider's session, in the Attempt's folder. */
const CONFIG_DIR = "claude-home"

/**
 * A model endpoint that speaks Anthropic's Messages API: `ANTHROPIC_BASE_URL` is its origin and path without the
 * `/v1` the SDK adds itself, the key goes in `ANTHROPIC_API_KEY` (the environment, never a file), and
 * `CLAUDE_CONFIG_DIR` lives in the Attempt's folder so the user's ~/.claude (a login, settings, hooks) is not read.
 */
const providerEnv = (provider: ModelProvider, attemptDir: string): Readonly<Record<string, string>> => ({
  ANTHROPIC_BASE_URL: provider.baseUrl.replace(/\/v1\/?$/, ""),
  CLAUDE_CONFIG_DIR: join(attemptDir, CONFIG_DIR),
  ...(provider.apiKey === undefined ? {} : { ANTHROPIC_API_KEY: provider.apiKey })
})

/**
 * `claude -p --input-format stream-json --replay-user-messages --output-format stream-json --verbose`: the task is a
 * user message on stdin, and the session's wrapper keeps feeding stdin with operator messages (ADR 0062) until the
 * daemon sees a turn's result with nothing taken since and closes it; Claude Code then exits. Permissions are
 * skipped like Codex's sandbox (see `UNATTENDED`). With a `provider`, the CLI is pointed at it instead of Anthropic's API.
 */
export const ClaudeHarness: Harness = {
  name: "claude",
  invocation: (input) => {
    const provider = input.modelProvider
    return {
      argv: [
        ...cliArgv(input.command, "claude"),
        "-p",
        "--input-format",
        "stream-json",
        "--replay-user-messages",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        ...modelArgs(input)
      ],
      env: { ...UNATTENDED, ...(provider === undefined ? {} : providerEnv(provider, input.attemptDir)) },
      stdin: claudeUserLine(input.prompt, CLAUDE_TASK_UUID),
      // Writing its settings creates the config folder, which the sandbox then binds writable: the CLI keeps its
      // session, shell snapshots and memory there, and its Bash tool fails without it.
      files: provider === undefined ? {} : { [`${CONFIG_DIR}/settings.json`]: "{}\n" }
    }
  },
  parser: () => claudeParser(),
  exitFailure: processExitFailure,
  // Claude Code reports each of its own retries of a failed request (a 429, a 5xx, a refused connection).
  isStallLine: (line) => {
    if (!line.includes("api_retry")) return false
    const parsed = jsonLine(line, 0)
    return parsed._tag === "Event" && parsed.event.type === "system" && parsed.event["subtype"] === "api_retry"
  },
  channel: claudeChannel
}

/** A tool result's content is a string or a list of content blocks; only their text matters here. */
const resultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : arr(content)
        .map((block) => str(obj(block)["text"]) ?? (obj(block)["type"] === "image" ? "[image]" : ""))
        .join("\n")

const claudeParser = (): StreamParser => {
  const tools = new Map<string, string>()
  let failure: AttemptFailure | undefined
  let lastError: string | undefined
  // Idle once a turn's result came and no message was taken since: its stdin may then be closed (ADR 0062).
  let idle = false
  const answered = new Set<string>()

  const replayed = (uuid: string, at: number): ReadonlyArray<TranscriptEntry> => {
    answered.add(uuid)
    if (uuid === CLAUDE_TASK_UUID) return []
    idle = false
    return [{ kind: "system", text: "claude took the operator's message", at }]
  }

  const assistant = (message: Readonly<Record<string, unknown>>, at: number): ReadonlyArray<TranscriptEntry> =>
    arr(message["content"]).flatMap((raw): ReadonlyArray<TranscriptEntry> => {
      const block = obj(raw)
      switch (block["type"]) {
        case "text": {
          const text = str(block["text"]) ?? ""
          // Claude Code reports API errors as a message from a "<synthetic>" model, not from Claude.
          if (message["model"] !== "<synthetic>") return [{ kind: "assistant", text: truncate(text), at }]
          lastError = text
          return [{ kind: "error", text: truncate(text), at }]
        }
        case "thinking":
          return [{ kind: "system", text: truncate(`thinking: ${str(block["thinking"]) ?? ""}`), at }]
        case "redacted_thinking":
          return []
        case "tool_use": {
          const tool = str(block["name"]) ?? "?"
          tools.set(str(block["id"]) ?? "", tool)
          return [{ kind: "tool_call", tool, text: toolCallText(block["input"]), at }]
        }
        default:
          return [unknownEventRow(block, at)]
      }
    })

  const user = (message: Readonly<Record<string, unknown>>, at: number): ReadonlyArray<TranscriptEntry> =>
    arr(message["content"]).flatMap((raw): ReadonlyArray<TranscriptEntry> => {
      const block = obj(raw)
      if (block["type"] !== "tool_result") return []
      const tool = tools.get(str(block["tool_use_id"]) ?? "")
      const text = truncate(resultText(block["content"]))
      return [{ kind: "tool_result", ...(tool === undefined ? {} : { tool }), text: block["is_error"] === true ? `error: ${text}` : text, at }]
    })

  const result = (e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    const u = obj(e["usage"])
    const cached = num(u["cache_read_input_tokens"])
    const usage: Usage = {
      inputTokens: num(u["input_tokens"]) + num(u["cache_creation_input_tokens"]) + cached,
      outputTokens: num(u["output_tokens"]),
      cachedInputTokens: cached,
      ...(typeof e["total_cost_usd"] === "number" ? { costUsd: e["total_cost_usd"] } : {})
    }
    const rows: Array<TranscriptEntry> = [{ kind: "usage", text: harnessUsageLine(usage), usage, at }]
    if (e["is_error"] !== true) return rows
    const subtype = str(e["subtype"]) ?? "error"
    const errors = arr(e["errors"]).filter((x): x is string => typeof x === "string")
    const message = str(e["result"]) ?? (errors.length > 0 ? errors.join("\n") : subtype)
    lastError = message
    failure =
      subtype === "error_max_turns"
        ? new AgentFailure({ reason: "the agent ran out of turns", evidence: `${num(e["num_turns"])} turns` })
        : subtype === "error_max_budget_usd"
          ? new AgentFailure({ reason: "the agent reached its cost cap", evidence: message })
          : providerFailure(message, at)
    return [{ kind: "error", text: truncate(message), at }, ...rows]
  }

  const event = (e: StreamEvent, at: number): ReadonlyArray<TranscriptEntry> => {
    switch (e.type) {
      case "system":
        switch (e["subtype"]) {
          case "init":
            return [{ kind: "system", text: `claude session ${str(e["session_id"]) ?? "?"} (${str(e["model"]) ?? "?"})`, at }]
          case "api_retry": {
            const status = typeof e["error_status"] === "number" ? `${e["error_status"]} ` : ""
            lastError = `${status}${str(e["error"]) ?? "error"}`
            const delay = Math.round(num(e["retry_delay_ms"]))
            return [{ kind: "system", text: `retrying the model request (${num(e["attempt"])}/${num(e["max_retries"])}) in ${delay} ms after ${lastError}`, at }]
          }
          default:
            return [{ kind: "system", text: truncate(`${str(e["subtype"]) ?? "system"}: ${JSON.stringify(e)}`, 2048), at }]
        }
      case "assistant":
        return assistant(obj(e["message"]), at)
      case "user": {
        const uuid = replayedUuid(e)
        return uuid === undefined ? user(obj(e["message"]), at) : replayed(uuid, at)
      }
      case "result":
        idle = true
        return result(e, at)
      case "stream_event":
        return []
      default:
        return [unknownEventRow(e, at)]
    }
  }

  return { ...jsonStreamParser(event, { failure: () => failure, lastError: () => lastError }), idle: () => idle, answered: () => answered }
}
