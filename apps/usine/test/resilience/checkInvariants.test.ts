import { assert, describe, it } from "@effect/vitest"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { checkAfterRestart, checkLedger, checkNoLostEvent } from "./support/checkInvariants"
import { checkWaitWindows } from "./support/checkWaitWindows"
import { emptySnapshot, type LedgerSnapshot } from "./support/LedgerSnapshot"

const A = "a".repeat(32)
const B = "b".repeat(32)
const ITEM = JSON.stringify(["github", "acme/widgets", 1])

/** One issue, one Event, one Run that opened, ran one Attempt and opened its pull request. */
const sound: LedgerSnapshot = {
  ...emptySnapshot,
  events: [{ id: "e1", loop: "fix", itemKey: ITEM, number: 1, generation: 0, contentHash: "h1", status: "claimed" }],
  runs: [{ id: A, eventId: "e1", loop: "fix", itemKey: ITEM, number: 1, state: "Succeeded" }],
  attempts: [{ id: `${A}/main/1`, runId: A, number: 1, outcome: { _tag: "Succeeded", result: { pullRequestNumber: 2, branch: `usine/fix/1-${A.slice(0, 8)}` } } }],
  transitions: [
    { runId: A, from: null, to: "Pending" },
    { runId: A, from: "Pending", to: "Running" },
    { runId: A, from: "Running", to: "Succeeded" }
  ],
  projections: [{ itemKey: ITEM, number: 1, contentHash: "raw1", viewHash: "h1" }]
}
const pulls = [{ number: 2, head: `usine/fix/1-${A.slice(0, 8)}`, state: "open" }]

const broken = (ledger: LedgerSnapshot, pullList = pulls) =>
  Object.fromEntries(checkLedger(ledger, pullList).filter((c) => c.violations.length > 0).map((c) => [c.invariant, c.violations]))

describe("the resilience suite's invariant checks", () => {
  it("find nothing wrong with a sound ledger", () => {
    assert.deepStrictEqual(broken(sound), {})
    assert.deepStrictEqual(checkNoLostEvent(sound, "acme/widgets", new Map([[1, ["fix"]]])).violations, [])
  })

  it("catch a second Run for the same content, and two open Runs of a Loop and Item", () => {
    const twice: LedgerSnapshot = {
      ...sound,
      events: [...sound.events, { ...sound.events[0]!, id: "e2" }],
      runs: [{ ...sound.runs[0]!, state: "Running" }, { id: B, eventId: "e2", loop: "fix", itemKey: ITEM, number: 1, state: "Pending" }],
      attempts: [],
      transitions: [{ runId: A, from: null, to: "Pending" }, { runId: A, from: "Pending", to: "Running" }, { runId: B, from: null, to: "Pending" }]
    }
    const found = broken(twice)
    assert.deepStrictEqual(Object.keys(found).sort(), ["content acted on at most once", "one open Run per Loop and Item"])
  })

  it("catch a missing or inconsistent transition row, an Attempt open on an ended Run, a defect", () => {
    const found = broken({
      ...sound,
      transitions: sound.transitions.slice(0, 2),
      attempts: [...sound.attempts, { id: `${A}/main/2`, runId: A, number: 2, outcome: undefined }, { id: `${A}/main/3`, runId: A, number: 3, outcome: { _tag: "Failed", failure: { _tag: "DefectFailure", reason: "boom" } } }]
    })
    assert.strictEqual(found["a transition row per state change"]?.length, 1)
    assert.strictEqual(found["Attempts open only on Running Runs, no defects"]?.length, 2)
  })

  it("catch a second pull request for a Run, one of no Run, and a recorded pull request that does not exist", () => {
    const found = broken(sound, [...pulls, { number: 3, head: `usine/fix/1-${A.slice(0, 8)}`, state: "closed" }, { number: 4, head: "usine/fix/9-deadbeef", state: "open" }])
    assert.strictEqual(found["at most one pull request per Run"]?.length, 2)
    assert.deepStrictEqual(Object.keys(broken(sound, [])), ["a succeeded Attempt's pull request exists"])
  })

  it("catch an Event lost for an Item's current content, and an unreattached Attempt", () => {
    const edited = { ...sound, projections: [{ itemKey: ITEM, number: 1, contentHash: "raw2", viewHash: "h2" }] }
    assert.strictEqual(checkNoLostEvent(edited, "acme/widgets", new Map([[1, ["fix"]]])).violations.length, 1)
    assert.strictEqual(checkNoLostEvent(sound, "acme/widgets", new Map([[7, ["fix"]]])).violations.length, 1)
    const agentFailed = { ...sound, attempts: [{ ...sound.attempts[0]!, outcome: { _tag: "Failed", failure: { _tag: "AgentFailure", reason: "x" } } }] }
    assert.strictEqual(checkAfterRestart(agentFailed, [`${A}/main/1`]).violations.length, 1)
    assert.strictEqual(checkAfterRestart({ ...sound, attempts: [{ ...sound.attempts[0]!, outcome: undefined }] }, [`${A}/main/1`]).violations.length, 1)
  })

  it("catch a request inside a wait window, and a window whose limited answer never came", () => {
    const request = (receivedAtMs: number, status = 200, path = "/repos/acme/widgets/issues"): LoggedRequest =>
      ({ method: "GET", path, status, conditional: false, counted: true, login: "bot", at: "", receivedAtMs })
    const window = { label: "429", installedAt: 0, limited: (r: LoggedRequest) => r.status === 429, until: (at: number) => at + 4_000 }
    const polite = [request(1_000, 429), request(1_100), request(5_100), request(2_000, 200, "/acme/widgets.git/info/refs")]
    assert.deepStrictEqual(checkWaitWindows(polite, "bot", [window]).violations, [])
    assert.strictEqual(checkWaitWindows([request(1_000, 429), request(3_000)], "bot", [window]).violations.length, 1)
    assert.strictEqual(checkWaitWindows([request(1_000)], "bot", [window]).violations.length, 1)
  })
})
