import { type ItemKey, parseItemKey } from "@usine/core/ids/ItemKey"
import type { AuditEntry, AuditOutcome } from "@usine/store/AuditLog"

/** The Audit page's filters as given, echoed back to fill its form. */
export interface AuditQuery {
  /** A GitHub login (their actions and their agents'), or `operator` for the Board token's actions. */
  readonly login?: string | undefined
  readonly repository?: string | undefined
  readonly action?: string | undefined
  readonly loop?: string | undefined
  /** At or after, epoch ms. */
  readonly since?: number | undefined
  /** Before, epoch ms. */
  readonly until?: number | undefined
  /** The `next` cursor of the previous page. */
  readonly before?: string | undefined
  /** Entries a page (the Board's page size by default, at most 500). */
  readonly limit?: number | undefined
}

/** One action as the Audit page and `/api/audit` show it. */
export interface AuditEntryView {
  readonly id: number
  /** Epoch ms, and the same instant in ISO 8601. */
  readonly at: number
  readonly time: string
  /** The person's login, `operator` for the Board token, or `agent` for what an agent did for a Run. */
  readonly by: string
  /** For an agent's action: the person who let its work out (the pull-request gate's approver, else the start's). */
  readonly for?: string | undefined
  readonly action: string
  readonly outcome: AuditOutcome
  readonly repository?: string | undefined
  /** `owner/name#12` when the action was on an Item or its Run. */
  readonly item?: string | undefined
  readonly loop?: string | undefined
  readonly runId?: string | undefined
  readonly detail?: string | undefined
  readonly result?: string | undefined
}

export interface AuditView {
  readonly query: AuditQuery
  /** Newest first. */
  readonly entries: ReadonlyArray<AuditEntryView>
  /** The cursor of the next (older) page; absent on the last page. */
  readonly next?: string | undefined
}

const itemOf = (repository: string | undefined, itemKey: string | undefined): string | undefined => {
  if (itemKey === undefined) return undefined
  const number = parseItemKey(itemKey as ItemKey)?.number
  return repository === undefined || number === undefined ? undefined : `${repository}#${number}`
}

/** An entry for people: who by name, the Item by its number, and what they wrote passed through the redactor. */
export const auditEntryView = (entry: AuditEntry, redact: (text: string) => string): AuditEntryView => ({
  id: entry.id,
  at: entry.at,
  time: new Date(entry.at).toISOString(),
  by: entry.actor === "agent" ? "agent" : entry.login ?? "operator",
  ...(entry.actor === "agent" && entry.login !== undefined ? { for: entry.login } : {}),
  action: entry.action,
  outcome: entry.outcome,
  ...(entry.repository === undefined ? {} : { repository: entry.repository }),
  ...(itemOf(entry.repository, entry.itemKey) === undefined ? {} : { item: itemOf(entry.repository, entry.itemKey) }),
  ...(entry.loop === undefined ? {} : { loop: entry.loop }),
  ...(entry.runId === undefined ? {} : { runId: entry.runId }),
  ...(entry.detail === undefined ? {} : { detail: redact(entry.detail) }),
  ...(entry.result === undefined ? {} : { result: redact(entry.result) })
})
