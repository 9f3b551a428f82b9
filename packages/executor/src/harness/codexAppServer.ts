import { createHash } from "node:crypto"
import type { InterventionChannel, MessageAnswer } from "./Harness"
import { jsonLine, obj, str } from "./jsonLine"

/** The JSON-RPC id of the task's `turn/start`; operator messages take their own UUID as theirs. */
export const CODEX_TASK_ID = "usine-task"

/** The JSON-RPC id of the `thread/resume` that opens the session's thread. */
export const CODEX_THREAD_ID = "usine-thread"

/** The rollout file, in `CODEX_HOME`, that names the session's thread before Codex starts (see `codexSeedRollout`). */
export const CODEX_SEED_ROLLOUT = "usine-thread.jsonl"

/**
 * The session's thread id, known before Codex starts so that the task and every operator message can name it in
 * their `turn/start`: a UUID derived from the session's folder (one per turn of an Attempt), the same after a restart.
 */
export const codexThreadId = (attemptDir: string): string => {
  const hex = createHash("sha256").update(`usine codex thread ${attemptDir}`).digest("hex")
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * A rollout holding only its `session_meta`: `thread/resume` by path loads it, so the thread has the id usine chose
 * (`thread/start` would pick its own, which the fixed stdin lines cannot know).
 */
export const codexSeedRollout = (threadId: string, workdir: string): string => {
  const timestamp = "2026-01-01T00:00:00.000Z"
  const meta = { id: threadId, timestamp, cwd: workdir, originator: "usine", cli_version: "0.0.0", source: "exec", model_provider: "usine" }
  return `${JSON.stringify({ timestamp, type: "session_meta", payload: meta })}\n`
}

const rpc = (message: Readonly<Record<string, unknown>>): string => `${JSON.stringify(message)}\n`

/** A `turn/start` with `text`: a new turn when the thread is idle, else input added to the running turn (steering). */
const codexTurnStart = (threadId: string, text: string, id: string): string =>
  rpc({ id, method: "turn/start", params: { threadId, clientUserMessageId: id, input: [{ type: "text", text, text_elements: [] }] } })

interface CodexSessionStart {
  readonly threadId: string
  /** Absolute path of the seed rollout (`CODEX_SEED_ROLLOUT` in `CODEX_HOME`). */
  readonly seedPath: string
  readonly workdir: string
  readonly model: string | undefined
  readonly prompt: string
}

/**
 * The first input of `codex app-server` (JSON-RPC over stdio, one message a line): `initialize` (with the
 * experimental API, which `thread/resume` by path needs), `initialized`, the thread opened from the seed rollout with
 * no approvals and no sandbox of Codex's own (usine's sandbox holds it, as `--dangerously-bypass-approvals-and-sandbox`
 * did for `exec`), then the task as the first turn. Codex handles them in order.
 */
export const codexSessionStart = (start: CodexSessionStart): string =>
  rpc({ id: "usine-init", method: "initialize", params: { clientInfo: { name: "usine", version: "1" }, capabilities: { experimentalApi: true, requestAttestation: false } } }) +
  rpc({ method: "initialized" }) +
  rpc({
    id: CODEX_THREAD_ID,
    method: "thread/resume",
    params: {
      threadId: start.threadId,
      path: start.seedPath,
      cwd: start.workdir,
      approvalPolicy: "never",
      sandbox: "danger-full-access",
      ...(start.model === undefined ? {} : { model: start.model })
    }
  }) +
  codexTurnStart(start.threadId, start.prompt, CODEX_TASK_ID)

/** Codex's JSON-RPC answer to request `id` on this line, if it is one: its result, or its error's message. */
const codexResponse = (
  line: string,
  id: string
): { readonly _tag: "Result"; readonly result: Readonly<Record<string, unknown>> } | { readonly _tag: "Error"; readonly message: string } | undefined => {
  if (!line.includes(id)) return undefined
  const parsed = jsonLine(line, 0)
  if (parsed._tag !== "Event" || parsed.event["id"] !== id || "method" in parsed.event) return undefined
  if ("error" in parsed.event) return { _tag: "Error", message: str(obj(parsed.event["error"])["message"]) ?? "refused" }
  return { _tag: "Result", result: obj(parsed.event["result"]) }
}

/** Whether `line` is Codex's `item/started` of a user message whose text is `text`: the message is in the thread. */
const codexUserMessage = (line: string, text: string): boolean => {
  const parsed = jsonLine(line, 0)
  if (parsed._tag !== "Event" || parsed.event["method"] !== "item/started") return false
  const item = obj(obj(parsed.event["params"])["item"])
  if (item["type"] !== "userMessage" || !Array.isArray(item["content"])) return false
  return item["content"].map((part) => str(obj(part)["text"]) ?? "").join("") === text
}

/**
 * Codex's app-server (ADR 0062): an operator message is one more `turn/start` on the session's thread. Codex answers
 * it at once: while a turn runs, the message is added to it and reaches the model with its next request (after the
 * tool call in progress); while idle, it starts a new turn. That answer, carrying the message's id, only says Codex
 * took the request: the message is in the thread once Codex starts a user-message item with its text (issue 32, as
 * Pi's in ADR 0093); until then it is queued. An error answer is a refusal.
 */
export const codexChannel: InterventionChannel = {
  _tag: "Stdin",
  message: (text, id, session) => codexTurnStart(codexThreadId(session.attemptDir), text, id),
  answer: (line, id): MessageAnswer | undefined => {
    const response = codexResponse(line, id)
    if (response === undefined) return undefined
    return response._tag === "Result"
      ? { _tag: "Queued", detail: "codex queued it: it goes into the thread with the agent's next request" }
      : { _tag: "Refused", reason: `codex refused it: ${response.message}` }
  },
  taken: {
    marker: `"userMessage"`,
    shows: codexUserMessage,
    detail: "codex took it into its thread: it reaches the model with the agent's next request"
  }
}
