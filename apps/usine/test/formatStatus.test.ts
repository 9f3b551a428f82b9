import { assert, describe, it } from "@effect/vitest"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import type { RunSummary } from "@usine/store/ReadModel/RunSummary"
import { cloneUrlOf } from "../src/layers/ExecutorLayer"
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
  lowRateQuotas: [{ resource: "core", limit: 5000, remaining: 12 }]
}

describe("formatStatus", () => {
  it("lists open Runs, what needs the operator, Workers and a low rate quota", () => {
    const text = formatStatus({
      url: "http://127.0.0.1:8787",
      open: [run("Running", 1)],
      needsYou,
      workers: [{ name: "local", slotsUsed: 1, slotsMax: 2, capabilities: ["codex"], lostCapabilities: [], health: "ok" }]
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
        "Workers:",
        "  local        1/2 slots  ok  agents: codex",
        "",
        "Rate budget: core 12/5000 left"
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
})
