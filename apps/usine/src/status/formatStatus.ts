import type { LedgerView } from "@usine/board/BoardLedger"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { WorkerStatus } from "@usine/board/WorkerStatusFeed"
import type { RunSummary } from "@usine/store/ReadModel/RunSummary"
import { type BrakesData, formatUsage, type UsageData } from "./formatUsage"

export interface StatusData {
  readonly url: string
  /** Running, Queued and Pending Runs (Waiting and Reviewing ones are in Needs you). */
  readonly open: ReadonlyArray<RunSummary>
  readonly needsYou: Pick<NeedsYouView, "waiting" | "failed" | "asks" | "pollFailures" | "lowRateQuotas"> & Partial<Pick<NeedsYouView, "reviewing">> & {
    readonly brakes: BrakesData
  }
  readonly workers: ReadonlyArray<WorkerStatus>
  /** Tokens and cost per UTC day, and today's caps. */
  readonly usage: UsageData
  /** Which ledger, and on a shared PostgreSQL one who leads it (ADR 0109); absent from a daemon that does not say. */
  readonly ledger?: LedgerView | undefined
}

const ledgerOf = (ledger: LedgerView): string =>
  ledger.engine === "SQLite"
    ? "Ledger: SQLite"
    : `Ledger: PostgreSQL, led by ${ledger.leader ?? "no node"}; this node (${ledger.node ?? "?"}) ${ledger.standby ? "is a standby: its Board is read-only" : "leads it"}`

const item = (run: RunSummary) => `${run.repository}${run.number === undefined ? "" : `#${run.number}`}`
const runLine = (run: RunSummary) => `  ${run.state.padEnd(8)} ${run.loop.padEnd(16)} ${item(run).padEnd(24)} ${run.id}`

/** What `usine status` prints: open Runs, Needs you, today's usage and brakes, Workers, rate budget. */
export const formatStatus = (data: StatusData): string => {
  const { needsYou } = data
  const waiting = needsYou.waiting.map((w) => w.run)
  const reviewing = (needsYou.reviewing ?? []).map((r) => r.run)
  const lines = [`usine at ${data.url}`, ...(data.ledger === undefined ? [] : [ledgerOf(data.ledger)]), "", `Open runs: ${data.open.length + waiting.length + reviewing.length}`]
  lines.push(...data.open.map(runLine), ...waiting.map(runLine), ...reviewing.map(runLine))
  const count = waiting.length + reviewing.length + needsYou.failed.length + needsYou.asks.length + needsYou.pollFailures.length
  lines.push("", `Needs you: ${count === 0 ? "nothing" : count}`)
  lines.push(...waiting.map((run) => `  approve  ${run.loop} ${item(run)}: ${data.url}/runs/${run.id}`))
  lines.push(...reviewing.map((run) => `  review   ${run.loop} ${item(run)}: its diff waits for Approve PR at ${data.url}/`))
  lines.push(...needsYou.failed.map((f) => `  failed   ${f.run.loop} ${item(f.run)}: ${f.failure.tag} ${f.failure.reason}`))
  lines.push(...needsYou.asks.map((a) => `  budget   ${a.loop} ${a.itemKey}: ${a.limit} runs used; reset it on the board`))
  lines.push(...needsYou.pollFailures.map((p) => `  poll     ${p.repository}: ${p.message.split("\n").join(" / ")}`))
  lines.push("", ...formatUsage(data.usage, needsYou.brakes))
  lines.push("", "Workers:")
  lines.push(
    ...data.workers.map(
      (w) => `  ${w.name.padEnd(12)} ${w.slotsUsed}/${w.slotsMax} slots  ${w.health}  agents: ${w.capabilities.join(", ") || "none"}`
    )
  )
  lines.push(
    "",
    needsYou.lowRateQuotas.length === 0
      ? "Rate budget: no GitHub quota below 10%"
      : `Rate budget: ${needsYou.lowRateQuotas.map((q) => `${q.resource} ${q.remaining}/${q.limit} left`).join(", ")}`
  )
  return lines.join("\n")
}
