import { assert, describe, it } from "@effect/vitest"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { RunSummary } from "@usine/store/ReadModel/RunSummary"
import { cloneUrlOf } from "../src/layers/WorkerExecutorLayer"
import { formatStatus, type StatusData } from "../src/status/formatStatus"

const run = (state: RunSummary["state"], number: number): RunSummary => ({
  id: RunId(`${number}`.padStart(32, "0")),
  loop: "start-dev",
  itemKey: ItemKey(`["github","acme/widgets",${number}]`),
  repository: "acme/widgets",
  number,
  state,
  version: 1,
  agent: "codex",
  approvalRequired: true,
  receivedAt: 0,
  updatedAt: 0
})

const needsYou: StatusData["needsYou"] = {
  waiting: [{ run: run("Waiting", 2), task: "Implement #2" }],
  failed: [],
  asks: [],
  pollFailures: [{ at: 0, repository: "usine.yaml", message: "configuration change rejected; the previous configuration stays in force:\nusine.yaml:3:1 oops" }],
  lowRateQuotas: [{ resource: "core", limit: 5000, remaining: 12 }],
  brakes: { held: [], moreHeld: false, agentHolds: [], capsReached: [] }
}

const DAY = "2026-10-16"
const noUsage: StatusData["usage"] = { days: [DAY, "2026-10-15"], global: [], loops: [], repositories: [], caps: [] }
const used = (inputTokens: number, outputTokens: number, costUsd?: number) => ({
  inputTokens,
  cachedInputTokens: 0,
  outputTokens,
  ...(costUsd === undefined ? {} : { costUsd })
})

describe("formatStatus", () => {
  it("lists open Runs, what needs the operator, Workers and a low rate quota", () => {
    const text = formatStatus({
      url: "http://127.0.0.1:8787",
      open: [run("Running", 1)],
      needsYou,
      workers: [{ name: "local", slotsUsed: 1, slotsMax: 2, capabilities: ["codex"], lostCapabilities: [], health: "ok" }],
      usage: noUsage
    })
    assert.strictEqual(
      text,
      [
        "usine at http://127.0.0.1:8787",
        "",
        "Open runs: 2",
        `  Running  start-dev        acme/widgets#1           ${"1".padStart(32, "0")}`,
        `  Waiting  start-dev        acme/widgets#2           ${"2".padStart(32, "0")}`,
        "",
        "Needs you: 2",
        `  approve  start-dev acme/widgets#2: http://127.0.0.1:8787/runs/${"2".padStart(32, "0")}`,
        "  poll     usine.yaml: configuration change rejected; the previous configuration stays in force: / usine.yaml:3:1 oops",
        "",
        `Usage today (UTC ${DAY}): nothing used`,
        "",
        "Brakes: none",
        "",
        "Workers:",
        "  local        1/2 slots  ok  agents: codex",
        "",
        "Rate budget: core 12/5000 left"
      ].join("\n")
    )
  })
})

describe("formatStatus's usage and brakes", () => {
  it("shows today's usage per scope with each cap and what is left, then every brake in force", () => {
    const text = formatStatus({
      url: "http://127.0.0.1:8787",
      open: [],
      needsYou: {
        ...needsYou,
        waiting: [],
        pollFailures: [],
        lowRateQuotas: [],
        brakes: {
          held: [
            {
              runId: RunId("3".padStart(32, "0")),
              kind: "OpenPullRequests",
              reason: "1 of the Loop's pull requests are open (max_open_pull_requests: 1): acme/widgets#7",
              until: undefined,
              since: 0,
              loop: "start-dev",
              itemKey: ItemKey(`["github","acme/widgets",3]`),
              repository: "acme/widgets",
              number: 3,
              agent: "codex",
              state: "Queued"
            },
            {
              runId: RunId("4".padStart(32, "0")),
              kind: "AgentQuota",
              reason: "waiting for quota reset at 2026-10-16T13:00:00.000Z: agent codex was refused (429)",
              until: Date.parse("2026-10-16T13:00:00Z"),
              since: 0,
              loop: "triage",
              itemKey: ItemKey(`["github","acme/widgets",4]`),
              repository: "acme/widgets",
              number: 4,
              agent: "codex",
              state: "Running"
            }
          ],
          moreHeld: true,
          agentHolds: [
            { agent: "codex", until: Date.parse("2026-10-16T13:00:00Z"), reason: "429", attemptId: attemptIdOf(RunId("4".padStart(32, "0")), 1), at: 0 }
          ],
          capsReached: [
            {
              loop: "triage",
              day: DAY,
              used: used(2_000, 100),
              tokens: 2_000,
              reached: "loop triage used 2,100 of its daily cap of 2,000 (UTC day)"
            }
          ]
        }
      },
      workers: [],
      usage: {
        ...noUsage,
        global: [
          { day: DAY, scope: "global", name: "", usage: used(120_000, 4_500, 1.25) },
          { day: "2026-10-15", scope: "global", name: "", usage: used(9, 9) }
        ],
        loops: [
          { day: DAY, scope: "loop", name: "triage", usage: used(2_000, 100) },
          { day: DAY, scope: "loop", name: "start-dev", usage: used(118_000, 4_400, 1.25) }
        ],
        repositories: [{ day: DAY, scope: "repository", name: "acme/widgets", usage: used(120_000, 4_500, 1.25) }],
        caps: [
          { day: DAY, used: used(120_000, 4_500, 1.25), tokens: 1_000_000, costUsd: 10, configuredTokens: 500_000 },
          { loop: "nightly", day: DAY, used: undefined, costUsd: 2 },
          { loop: "triage", day: DAY, used: used(2_000, 100), tokens: 2_000, reached: "loop triage used 2,100 of its daily cap of 2,000 (UTC day)" }
        ]
      }
    })
    const start = text.indexOf("Usage today")
    assert.strictEqual(
      text.slice(start, text.indexOf("\nWorkers:")),
      [
        `Usage today (UTC ${DAY}):`,
        "  daemon        124,500 tokens ($1.25)  cap 1,000,000 tokens (875,500 left), $10.00 ($8.75 left)",
        "  nightly       0 tokens                cap $2.00 ($2.00 left)",
        "  start-dev     122,400 tokens ($1.25)",
        "  triage        2,100 tokens            cap 2,000 tokens (0 left)",
        "  acme/widgets  124,500 tokens ($1.25)",
        "",
        "Brakes: 4",
        "  cap      loop triage used 2,100 of its daily cap of 2,000 (UTC day); raise it on the board",
        "  quota    agent codex until 2026-10-16T13:00:00Z: 429",
        "  wip      start-dev acme/widgets#3: 1 of the Loop's pull requests are open (max_open_pull_requests: 1): acme/widgets#7",
        "  quota    triage acme/widgets#4: waiting for quota reset at 2026-10-16T13:00:00.000Z: agent codex was refused (429)",
        "  …        more Runs are held; see the board",
        ""
      ].join("\n")
    )
  })
})

describe("cloneUrlOf", () => {
  it("clones from github.com, a GitHub Enterprise host, or the emulator", () => {
    assert.strictEqual(cloneUrlOf("https://api.github.com")("acme/widgets"), "https://github.com/acme/widgets.git")
    assert.strictEqual(cloneUrlOf("https://ghe.example.com/api/v3")("acme/widgets"), "https://ghe.example.com/acme/widgets.git")
    assert.strictEqual(cloneUrlOf("http://127.0.0.1:4010")("acme/widgets"), "http://127.0.0.1:4010/acme/widgets.git")
  })

  it("says which ledger, and on a shared PostgreSQL ledger who leads it and what this node is (ADR 0109)", () => {
    const base = { url: "http://127.0.0.1:8787", open: [], needsYou, workers: [], usage: noUsage }
    const lineOf = (text: string) => text.split("\n")[1]
    assert.strictEqual(lineOf(formatStatus({ ...base, ledger: { engine: "SQLite", standby: false } })), "Ledger: SQLite")
    assert.strictEqual(
      lineOf(formatStatus({ ...base, ledger: { engine: "PostgreSQL", node: "usine@b:2", leader: "usine@a:1 (epoch 3)", standby: true } })),
      "Ledger: PostgreSQL, led by usine@a:1 (epoch 3); this node (usine@b:2) is a standby: its Board is read-only"
    )
    assert.strictEqual(lineOf(formatStatus(base)), "", "a daemon that does not say: no line")
  })
})
