import type { AttemptFailure } from "@usine/core/attempt/failure"
import type { TranscriptEntry } from "@usine/core/transcript/TranscriptRow"

/** How to start one agent CLI for one Attempt. */
export interface HarnessInvocation {
  readonly argv: ReadonlyArray<string>
  /** Added to the environment the Agent's config grants; never the daemon's own. */
  readonly env: Readonly<Record<string, string>>
  /** Written to the process's stdin, then stdin is closed (unless the harness keeps it for interventions). */
  readonly stdin: string | undefined
  /** Files to write into the Attempt's folder before start, relative path → content (harness config). */
  readonly files: Readonly<Record<string, string>>
}

/** An OpenAI-compatible model endpoint the CLI uses instead of its own provider (a local server, the scripted model). */
export interface ModelProvider {
  /** Base URL with the API version, e.g. `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  /** Bearer token; handed to the CLI in its environment (`MODEL_PROVIDER_KEY_VARIABLE`), never written to a file. */
  readonly apiKey?: string
  /** The model id requested from that endpoint. */
  readonly model: string
}

/** The variable that carries `ModelProvider.apiKey` to the CLI; its config names the variable, not the key. */
export const MODEL_PROVIDER_KEY_VARIABLE = "USINE_MODEL_API_KEY"

export interface HarnessInput {
  readonly prompt: string
  readonly model: string | undefined
  /** The worktree: the agent's working directory. */
  readonly workdir: string
  /** The Attempt's own folder (stream file, harness config), outside the worktree. */
  readonly attemptDir: string
  /** The Agent's configured command line, for the `command` harness or to override a CLI's binary. */
  readonly command: ReadonlyArray<string> | undefined
  /** When set, the harness writes a provider config for this endpoint into the Attempt's folder and selects it. */
  readonly modelProvider?: ModelProvider
}

/** Parser state carried between lines of one stream (a harness may need to join partial messages). */
export interface StreamParser {
  /** Maps one line of the agent's stdout to transcript rows; unknown or invalid lines become `system` or `error` rows. */
  readonly line: (line: string, at: number) => ReadonlyArray<TranscriptEntry>
  /** What the stream said about failure once it ended, if anything (a rate limit, a failed turn). */
  readonly failure: () => AttemptFailure | undefined
  /** The last error the stream reported (or the tail of a plain-text stream), as evidence for an exit failure. */
  readonly lastError?: () => string | undefined
  /**
   * For a `Stdin` channel: the CLI finished its work and waits for input, so its stdin may be closed (it then
   * exits). `false` while it works, retries, or took a message it has not started on yet.
   */
  readonly idle?: () => boolean
  /**
   * For a `Stdin` channel whose CLI may announce more work right after it looked done (Pi prints a retry after its
   * `agent_end`): the command to feed now, with its id, whose answer settles whether it is idle; `idle` stays false
   * until then. `undefined` when none is due.
   */
  readonly idleProbe?: () => { readonly id: string; readonly line: string } | undefined
  /** For a `Stdin` channel: the ids of the messages the CLI answered so far (accepted or refused). */
  readonly answered?: () => ReadonlySet<string>
}

/**
 * The CLI's answer to one operator message (ADR 0093): taken into its conversation (how), queued by the CLI for later
 * (when: it is not in the conversation yet), or refused (why).
 */
export type MessageAnswer =
  | { readonly _tag: "Accepted"; readonly detail: string }
  | { readonly _tag: "Queued"; readonly detail: string }
  | { readonly _tag: "Refused"; readonly reason: string }

/** How an operator message reaches the CLI while it runs (ADR 0062). */
export type InterventionChannel =
  | {
      /** The session's wrapper feeds the CLI's stdin: the task as `stdin`, then each message as one more input. */
      readonly _tag: "Stdin"
      /** The stdin bytes (one line, newline included) that carry `text`, tagged with `id`, for the session in `session.attemptDir`. */
      readonly message: (text: string, id: string, session: { readonly attemptDir: string }) => string
      /** The CLI's answer to message `id` if this stream line is one. */
      readonly answer: (line: string, id: string) => MessageAnswer | undefined
      /**
       * For a CLI whose answer may be `Queued`: a fixed text every stream line showing a message taken into the
       * conversation contains (to find them cheaply), and whether this line shows `text` taken, after its answer.
       */
      readonly taken?: { readonly marker: string; readonly shows: (line: string, text: string) => boolean; readonly detail: string }
    }
  /** A `command` agent: the message is a file in `$USINE_INBOX`, which it may or may not read. */
  | { readonly _tag: "Inbox" }
  /** The CLI cannot take input mid-turn; the reason is what the operator is told. */
  | { readonly _tag: "None"; readonly reason: string }

/**
 * How a CLI fed through its stdin is asked to end the turn in progress before its session is stopped (ADR 0101):
 * Codex's `turn/interrupt`. The daemon feeds `request`'s line, then waits a bounded time for a line that `ended` reads.
 */
export interface TurnInterrupt {
  /** A fixed text every stream line naming a turn's start or end contains (to find them cheaply). */
  readonly marker: string
  /** From the stream's lines that contain `marker`: the command ending the turn in progress, or none running. */
  readonly request: (
    lines: ReadonlyArray<string>,
    session: { readonly attemptDir: string }
  ) => { readonly id: string; readonly turnId: string; readonly line: string } | undefined
  /** How turn `turnId` ended (`interrupted`, `completed`), if this line says it did. */
  readonly ended: (line: string, turnId: string) => string | undefined
}

/** One agent CLI: how to start it and how to read what it prints. */
export interface Harness {
  readonly name: "codex" | "claude" | "pi" | "command"
  readonly invocation: (input: HarnessInput) => HarnessInvocation
  readonly parser: () => StreamParser
  /** Maps the process's exit to a failure; `undefined` means it ended well. */
  readonly exitFailure: (exitCode: number | null, signal: string | null, stream: StreamParser) => AttemptFailure | undefined
  /** A line that means the CLI is stuck retrying forever (Codex's "Reconnecting..."), counted as no progress. */
  readonly isStallLine: (line: string) => boolean
  /** How operator messages reach it; absent: it cannot take one mid-turn (`channelOf`). */
  readonly channel?: InterventionChannel
  /** How its turn in progress is ended before its session is stopped; absent: the session is only signalled. */
  readonly interrupt?: TurnInterrupt
}

/** A harness's channel; one that declares none refuses messages, saying so. */
export const channelOf = (harness: Harness): InterventionChannel =>
  harness.channel ?? { _tag: "None", reason: `the ${harness.name} CLI cannot take input mid-turn` }
