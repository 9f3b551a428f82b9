import { Context, type Effect, Schema } from "effect"

/** What became of an action: it changed something, it changed nothing (a repeat), or the person was refused. */
export const AuditOutcome = Schema.Literal("done", "unchanged", "refused")
export type AuditOutcome = typeof AuditOutcome.Type

/** Who acted: a person or the Board token on the Board, or an agent for a Run. */
export const AuditActor = Schema.Literal("operator", "agent")

/** One action as it is appended; the ledger adds its id and time. */
export const AuditRecord = Schema.Struct({
  actor: AuditActor,
  /**
   * The signed-in person's GitHub login, absent for the Board token (read as `operator`); for an agent's action, the
   * person who let its work out (the pull-request gate's approver, else the start's), when one did.
   */
  login: Schema.UndefinedOr(Schema.String),
  /** The Board action (`approve`, `intervene`, `pause`, …) or the agent's (`openPullRequest`, `push`). */
  action: Schema.String,
  outcome: AuditOutcome,
  /** The repository acted on; absent for a Loop or the daemon as a whole. */
  repository: Schema.UndefinedOr(Schema.String),
  loop: Schema.UndefinedOr(Schema.String),
  runId: Schema.UndefinedOr(Schema.String),
  itemKey: Schema.UndefinedOr(Schema.String),
  /** What the person gave: an Intervene message, an edit, a change request, a cap, a column. */
  detail: Schema.UndefinedOr(Schema.String),
  /** What became of it: a message's delivery, the refusal's reason. */
  result: Schema.UndefinedOr(Schema.String)
})
export type AuditRecord = typeof AuditRecord.Type

export const AuditEntry = Schema.Struct({ id: Schema.Number, at: Schema.Number, ...AuditRecord.fields })
export type AuditEntry = typeof AuditEntry.Type

/** Which entries a page lists; `before` is the `next` cursor of the previous page. */
export interface AuditFilter {
  /** A login (their actions and their agents'), or `null` for the Board token's actions. */
  readonly login?: string | null | undefined
  readonly repository?: string | undefined
  /** Only these repositories' entries (and those of no repository): what a person may read. */
  readonly readable?: ReadonlyArray<string> | undefined
  readonly action?: string | undefined
  readonly loop?: string | undefined
  /** At or after, epoch ms. */
  readonly since?: number | undefined
  /** Before, epoch ms. */
  readonly until?: number | undefined
  readonly before?: string | undefined
  readonly limit: number
}

interface AuditPage {
  /** Newest first. */
  readonly entries: ReadonlyArray<AuditEntry>
  /** The cursor of the next (older) page; absent on the last page. */
  readonly next?: string | undefined
}

/** The ledger's audit of what people did on the Board (ADR 0107): appended after each action, read a page at a time. */
export class AuditLog extends Context.Tag("usine/AuditLog")<
  AuditLog,
  {
    /** Appends one action at the Clock's time. */
    readonly append: (record: AuditRecord) => Effect.Effect<void>
    /** One keyset page, newest first by time then id; each filter is served by an index. */
    readonly page: (filter: AuditFilter) => Effect.Effect<AuditPage>
  }
>() {}
