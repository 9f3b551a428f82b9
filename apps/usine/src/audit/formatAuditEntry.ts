import type { AuditEntryView } from "@usine/board/AuditTrail/auditView"

/** One line of `usine audit`: when, who, what, where, then what they gave and what became of it, quoted. */
export const formatAuditEntry = (entry: AuditEntryView): string => {
  const where = [
    entry.item ?? entry.repository,
    entry.runId === undefined ? undefined : `run ${entry.runId.slice(0, 8)}`,
    entry.loop === undefined ? undefined : `loop ${entry.loop}`
  ].filter((part) => part !== undefined).join(" ")
  const who = entry.by === "agent"
    ? entry.for === undefined ? "agent" : `agent for @${entry.for}`
    : entry.by === "operator" ? "operator" : `@${entry.by}`
  return [
    entry.time,
    who,
    entry.outcome === "done" ? entry.action : `${entry.action} (${entry.outcome})`,
    where === "" ? "-" : where,
    ...(entry.detail === undefined ? [] : [JSON.stringify(entry.detail)]),
    ...(entry.result === undefined ? [] : [`→ ${entry.result}`])
  ].join("  ")
}
