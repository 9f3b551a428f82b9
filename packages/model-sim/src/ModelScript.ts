/** Tokens the scripted model reports for one turn. */
export interface TurnUsage {
  readonly input: number
  readonly output: number
  readonly cached?: number
}

interface Usable {
  /** Defaults to `defaultUsage`. */
  readonly usage?: TurnUsage
}

/** The model answers with text and no tool call: a CLI ends its session on it. */
export interface Say extends Usable {
  readonly say: string
}

/** The model calls the CLI's shell tool (Codex `exec_command {cmd}`, Pi `bash {command}`, Claude Code `Bash {command}`). */
export interface Run extends Usable {
  readonly run: string
}

/** The model writes a whole file (Pi `write`, Claude Code `Write`; for Codex, a shell command). */
export interface Write extends Usable {
  readonly write: string
  readonly content: string
}

/** The model replaces one exact text in a file (Pi `edit`, Claude Code `Read` then `Edit`; for Codex, a shell command). */
export interface Edit extends Usable {
  readonly edit: string
  readonly oldText: string
  readonly newText: string
}

/**
 * The server misbehaves instead of answering: `429` with a `retry-after` header, `500`, `cut` (the stream
 * starts, then the connection drops before the turn completes), `hang` (the request is accepted, never answered).
 * A fault answers `times` requests in a row (default 1; `Infinity` for every request from then on).
 */
export type Fault =
  | { readonly fault: "429"; readonly retryAfter: number; readonly times?: number }
  | { readonly fault: "500"; readonly times?: number }
  | { readonly fault: "cut"; readonly times?: number }
  | { readonly fault: "hang"; readonly times?: number }

/** One model response, or one misbehaviour. */
export type Turn = Say | Run | Write | Edit | Fault

/** The model's side of a session, one turn per model request of a conversation. */
export interface ModelScript {
  readonly turns: ReadonlyArray<Turn>
  /** Model id listed by `GET /v1/models`; requests for any model are answered. */
  readonly model?: string
}

/** A tool call, in the model's terms, before a wire format names it. */
export type Action =
  | { readonly _tag: "Say"; readonly text: string }
  | { readonly _tag: "Run"; readonly command: string }
  | { readonly _tag: "Write"; readonly path: string; readonly content: string }
  | { readonly _tag: "Edit"; readonly path: string; readonly oldText: string; readonly newText: string }

const defaultUsage: TurnUsage = { input: 900, output: 30 }

/** When the script has run out, the model closes the session instead of leaving a CLI waiting. */
const SCRIPT_EXHAUSTED: Say = { say: "(the scripted model has no more turns)" }

export const isFault = (turn: Turn): turn is Fault => "fault" in turn

export const usageOf = (turn: Exclude<Turn, Fault>): TurnUsage => turn.usage ?? defaultUsage

/** The action a non-fault turn asks of the CLI. */
export const actionOf = (turn: Exclude<Turn, Fault>): Action => {
  if ("say" in turn) return { _tag: "Say", text: turn.say }
  if ("run" in turn) return { _tag: "Run", command: turn.run }
  if ("write" in turn) return { _tag: "Write", path: turn.write, content: turn.content }
  return { _tag: "Edit", path: turn.edit, oldText: turn.oldText, newText: turn.newText }
}

/**
 * Which turn answers the `n`th request (0-based) of a conversation: each turn takes one request, a fault takes
 * `times` of them. Past the end, `SCRIPT_EXHAUSTED`.
 */
export const turnForRequest = (script: ModelScript, n: number): Turn => {
  let remaining = n
  for (const turn of script.turns) {
    const span = isFault(turn) ? (turn.times ?? 1) : 1
    if (remaining < span) return turn
    remaining -= span
  }
  return SCRIPT_EXHAUSTED
}
