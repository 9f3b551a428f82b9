import { Effect, Option, Schema } from "effect"
import * as path from "node:path/posix"
import { AttemptOutcome } from "@usine/core/attempt/outcome"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"

/** The Attempt's workspace is ready: where the work starts, what it is measured against, where it goes. */
export class BeginEntry extends Schema.TaggedClass<BeginEntry>()("begin", {
  at: Schema.Number,
  worker: Schema.String,
  /** What the worktree was created from: a branch, or the salvage branch an operator retry resumes. */
  startRef: Schema.String,
  startSha: Schema.String,
  /** The tip of the branch the change is for (the base branch, or the pull request's head). */
  baseSha: Schema.String,
  baseBranch: Schema.String,
  pushBranch: Schema.String,
  /** The push branch's sha when the Attempt began; the push is refused if someone else moved it. */
  leaseSha: Schema.NullOr(Schema.String),
  /** Set for pull-request Loops: the work goes back to this pull request, none is opened. */
  pullRequest: Schema.optional(Schema.Struct({ number: Schema.Number, url: Schema.String })),
  forbiddenPaths: Schema.Array(Schema.String)
}) {}

/** One agent turn: the first with the task, each later one with verification feedback. */
export class TurnEntry extends Schema.TaggedClass<TurnEntry>()("turn", {
  at: Schema.Number,
  turn: Schema.Number,
  prompt: Schema.String
}) {}

/** How a turn ended, and after how many stream lines: a replay reads exactly those. */
export class TurnEndEntry extends Schema.TaggedClass<TurnEndEntry>()("turnEnd", {
  at: Schema.Number,
  turn: Schema.Number,
  lines: Schema.Number,
  exitCode: Schema.NullOr(Schema.Number),
  signal: Schema.NullOr(Schema.String),
  /** A limit that ended the turn; `disconnected`: the model proxy's tunnel was lost (ADR 0097). */
  limit: Schema.optional(Schema.Literal("stalled", "runaway", "vanished", "disconnected")),
  detail: Schema.optionalWith(Schema.String, { default: () => "" })
}) {}

/** An operator message, placed after `afterLine` lines of its turn's stream. */
export class OperatorEntry extends Schema.TaggedClass<OperatorEntry>()("operator", {
  at: Schema.Number,
  turn: Schema.Number,
  afterLine: Schema.Number,
  /** The message's file under `operator/`. */
  file: Schema.String,
  text: Schema.String,
  /** What became of it (ADR 0062): `delivered: …`, `queued: …` or `refused: …`; absent in older journals. */
  note: Schema.optional(Schema.String)
}) {}

export const VerifyResult = Schema.Struct({
  command: Schema.String,
  passed: Schema.Boolean,
  exitCode: Schema.NullOr(Schema.Number),
  /** The last 16 KiB of stdout and stderr, redacted. */
  output: Schema.String,
  /** How long the command ran; absent in journals written before it was measured. */
  durationMs: Schema.optional(Schema.Number)
})
export type VerifyResult = typeof VerifyResult.Type

/** One verification round: the commands run, in order, up to the first failure. */
export class VerifyEntry extends Schema.TaggedClass<VerifyEntry>()("verify", {
  at: Schema.Number,
  round: Schema.Number,
  results: Schema.Array(VerifyResult)
}) {
  get passed(): boolean {
    return this.results.every((r) => r.passed)
  }
}

/** What became of a failed Attempt's work: salvage's answer, or `Failed` when salvage itself failed (ADR 0047). */
export const SalvageResult = Schema.Literal("Saved", "Nothing", "Refused", "Failed")
export type SalvageResult = typeof SalvageResult.Type

export class OutcomeEntry extends Schema.TaggedClass<OutcomeEntry>()("outcome", {
  at: Schema.Number,
  outcome: AttemptOutcome,
  summary: Schema.String,
  /** Set on a failed outcome: the folder may go only once the work is kept elsewhere (or there is none). */
  salvage: Schema.optional(SalvageResult)
}) {
  /** Nothing in the Attempt's folder is needed any more: it succeeded, or its work is kept, refused or absent. */
  get folderServed(): boolean {
    return this.outcome._tag !== "Failed" || (this.salvage !== undefined && this.salvage !== "Failed")
  }
}

export const JournalEntry = Schema.Union(BeginEntry, TurnEntry, TurnEndEntry, OperatorEntry, VerifyEntry, OutcomeEntry)
export type JournalEntry = typeof JournalEntry.Type

const JournalJson = Schema.parseJson(Schema.Array(JournalEntry))

const journalPath = (attemptDir: string): string => path.join(attemptDir, "journal.json")

/** Reads an Attempt's journal; `None` when the Attempt never got that far (or the file is unreadable). */
export const readJournal = (
  transport: WorkerTransportShape,
  attemptDir: string
): Effect.Effect<Option.Option<ReadonlyArray<JournalEntry>>, TransportError> =>
  transport
    .readFile(journalPath(attemptDir))
    .pipe(Effect.map(Option.flatMap((bytes) => Schema.decodeUnknownOption(JournalJson)(Buffer.from(bytes).toString("utf8")))))

/**
 * The Attempt's durable history on the Worker, in `<attemptDir>/journal.json`. Each step the executor takes is
 * written here before its transcript rows are emitted, and rewritten whole (atomically) on each append: the
 * executor of one Attempt is its only writer. A later process replays it to resume where the last one stopped.
 */
export interface AttemptJournal {
  readonly entries: () => ReadonlyArray<JournalEntry>
  readonly append: (entry: JournalEntry) => Effect.Effect<void, TransportError>
  readonly find: <T extends JournalEntry["_tag"]>(
    tag: T,
    match: (entry: Extract<JournalEntry, { readonly _tag: T }>) => boolean
  ) => Option.Option<Extract<JournalEntry, { readonly _tag: T }>>
}

export const openJournal = (
  transport: WorkerTransportShape,
  attemptDir: string,
  initial: ReadonlyArray<JournalEntry>
): AttemptJournal => {
  let entries: ReadonlyArray<JournalEntry> = initial
  return {
    entries: () => entries,
    append: (entry) =>
      Effect.suspend(() => {
        const next = [...entries, entry]
        return transport
          .writeFile(journalPath(attemptDir), Schema.encodeSync(JournalJson)(next))
          .pipe(Effect.tap(() => Effect.sync(() => void (entries = next))))
      }),
    find: (tag, match) =>
      Option.fromNullable(
        entries.find((entry): entry is never => entry._tag === tag && match(entry as never)) as
          | Extract<JournalEntry, { readonly _tag: typeof tag }>
          | undefined
      )
  }
}
