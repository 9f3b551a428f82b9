import type { BrakesView, CapStatus } from "@usine/board/BoardViews/brakesView"
import type { UsageView } from "@usine/board/BoardViews/usageView"
import { formatUsd } from "@usine/core/usage/usageFigures"
import { tokenCount, usageText } from "@usine/board/pages/usageText"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import type { HoldKind } from "@usine/core/brakes/HoldKind"

/** What `usine status` needs of the Usage page's JSON. */
export type UsageData = Pick<UsageView, "days" | "global" | "loops" | "repositories" | "caps">

/** What `usine status` needs of Needs you's brakes. */
export type BrakesData = Pick<BrakesView, "held" | "moreHeld" | "agentHolds" | "capsReached">

const number = (n: number) => n.toLocaleString("en-US")

/** `cap 100,000 tokens (98,500 left), $5.00 ($4.95 left)`: today's caps, raises included. */
const capLine = (cap: CapStatus): string => {
  const parts: Array<string> = []
  if (cap.tokens !== undefined) {
    parts.push(`${number(cap.tokens)} tokens (${number(Math.max(0, cap.tokens - tokenCount(cap.used)))} left)`)
  }
  if (cap.costUsd !== undefined) parts.push(`${formatUsd(cap.costUsd)} (${formatUsd(Math.max(0, cap.costUsd - (cap.used?.costUsd ?? 0)))} left)`)
  return parts.length === 0 ? "" : `cap ${parts.join(", ")}`
}

const kindLabel: Record<HoldKind, string> = {
  AgentQuota: "quota",
  DailyCap: "cap",
  NoProgress: "parked",
  OpenPullRequests: "wip",
  RetryBackoff: "retrying"
}

const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z")

/**
 * Today's tokens and cost for the daemon, each Loop and each repository, each cap with what is left, then every
 * brake in force: caps reached, Agents waiting for a quota reset, held Runs.
 */
export const formatUsage = (usage: UsageData, brakes: BrakesData): ReadonlyArray<string> => {
  const today = usage.days[0] ?? ""
  const capOf = (loop: string | undefined) => usage.caps.find((cap) => cap.loop === loop)
  const usedOf = (rows: UsageView["global"], name: string) => rows.find((r) => r.day === today && r.name === name)?.usage
  const loopNames = [
    ...new Set([
      ...usage.caps.flatMap((cap) => (cap.loop === undefined ? [] : [cap.loop])),
      ...usage.loops.filter((r) => r.day === today).map((r) => r.name)
    ])
  ].sort()
  const rows: Array<{ name: string; used: Usage | undefined; cap: CapStatus | undefined }> = [
    ...(usedOf(usage.global, "") !== undefined || capOf(undefined) !== undefined
      ? [{ name: "daemon", used: usedOf(usage.global, ""), cap: capOf(undefined) }]
      : []),
    ...loopNames.map((name) => ({ name, used: usedOf(usage.loops, name), cap: capOf(name) })),
    ...usage.repositories.filter((r) => r.day === today).map((r) => ({ name: r.name, used: r.usage, cap: undefined }))
  ]
  const lines = [`Usage today (UTC ${today}):${rows.length === 0 ? " nothing used" : ""}`]
  const nameWidth = Math.max(12, ...rows.map((r) => r.name.length + 2))
  const usedWidth = Math.max(...rows.map((r) => usageText(r.used).length + 2))
  lines.push(
    ...rows.map(({ cap, name, used }) => {
      const capped = cap === undefined ? "" : capLine(cap)
      return `  ${name.padEnd(nameWidth)}${capped === "" ? usageText(used) : `${usageText(used).padEnd(usedWidth)}${capped}`}`
    })
  )

  const count = brakes.held.length + brakes.agentHolds.length + brakes.capsReached.length
  lines.push("", `Brakes: ${count === 0 ? "none" : count}`)
  lines.push(...brakes.capsReached.map((cap) => `  cap      ${cap.reached ?? `${cap.loop ?? "daemon"} reached its cap`}; raise it on the board`))
  lines.push(...brakes.agentHolds.map((hold) => `  quota    agent ${hold.agent} until ${iso(hold.until)}: ${hold.reason}`))
  lines.push(
    ...brakes.held.map((hold) => {
      const item = `${hold.repository}${hold.number === undefined ? "" : `#${hold.number}`}`
      return `  ${kindLabel[hold.kind].padEnd(8)} ${hold.loop} ${item}: ${hold.reason}`
    })
  )
  if (brakes.moreHeld) lines.push("  …        more Runs are held; see the board")
  return lines
}
