import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { InfraFailure, AgentFailure } from "@usine/core/attempt/failure"
import { shouldAutoRetry } from "@usine/core/attempt/shouldAutoRetry"
import { EventId } from "@usine/core/ids/EventId"
import { RunId } from "@usine/core/ids/RunId"
import { claimRun } from "@usine/core/run/claimRun"
import {
  Canceled,
  cancelByOperator,
  expireApproval,
  Failed,
  holdForReview,
  OperatorCanceled,
  Pending,
  Queued,
  requestChanges,
  Reviewing,
  Running,
  Succeeded,
  Waiting
} from "@usine/core/run/state"

const id = RunId("r1")
const by = EventId("e2")

describe("claimRun", () => {
  it("opens a Run when nothing blocks", () => {
    expect(claimRun(Option.none(), by)).toEqual({ _tag: "OpenRun" })
  })
  it("queues behind a Running Run", () => {
    expect(claimRun(Option.some({ id, state: new Running() }), by)).toEqual({ _tag: "QueueEvent" })
  })
  it("queues behind a Run at the pull-request gate: its work has started", () => {
    expect(claimRun(Option.some({ id, state: new Reviewing() }), by)).toEqual({ _tag: "QueueEvent" })
  })
  it("the gate's transitions: held from Running, reopened to Running, closed as Canceled", () => {
    const reviewing = holdForReview(new Running())
    expect(reviewing._tag).toBe("Reviewing")
    expect(requestChanges(reviewing)._tag).toBe("Running")
    expect(cancelByOperator(reviewing).reason._tag).toBe("OperatorCanceled")
    expect(expireApproval(reviewing, 5).reason).toEqual({ _tag: "ApprovalTimedOut", afterMinutes: 5 })
  })
  it.each([new Pending(), new Waiting(), new Queued()])("supersedes an unstarted Run (%s)", (state) => {
    const decision = claimRun(Option.some({ id, state }), by)
    expect(decision._tag).toBe("SupersedeRun")
    if (decision._tag === "SupersedeRun") {
      expect(decision.runId).toBe(id)
      expect(decision.state.reason._tag).toBe("Superseded")
    }
  })
  it.each([new Succeeded(), new Failed(), new Canceled({ reason: new OperatorCanceled() })])(
    "opens a Run beside a closed one (%s)",
    (state) => {
      expect(claimRun(Option.some({ id, state }), by)).toEqual({ _tag: "OpenRun" })
    }
  )
})

describe("shouldAutoRetry", () => {
  it("retries an InfraFailure below Attempt 3 only", () => {
    const infra = new InfraFailure({ reason: "ssh dropped" })
    expect([1, 2, 3, 4].map((n) => shouldAutoRetry(infra, n))).toEqual([true, true, false, false])
  })
  it("never retries other failures", () => {
    expect(shouldAutoRetry(new AgentFailure({ reason: "tests fail" }), 1)).toBe(false)
  })
})
