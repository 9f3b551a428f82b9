import { assert, describe, it } from "@effect/vitest"
import { codexThreadId } from "../../src/harness/codexAppServer"
import { CODEX_INTERRUPT_PREFIX, codexInterrupt } from "../../src/harness/codexInterrupt"

const started = (id: string) => JSON.stringify({ method: "turn/started", params: { threadId: "t", turn: { id, status: "inProgress" } } })
const completed = (id: string, status: string) => JSON.stringify({ method: "turn/completed", params: { threadId: "t", turn: { id, status } } })
const session = { attemptDir: "/w/attempts/a/turn-1" }

describe("codex turn/interrupt (ADR 0101)", () => {
  it("asks to end the last turn started and not completed, on the session's thread", () => {
    const request = codexInterrupt.request([started("A"), completed("A", "completed"), started("B")], session)
    assert.strictEqual(request?.turnId, "B")
    assert.isTrue(request?.id.startsWith(CODEX_INTERRUPT_PREFIX))
    const sent = JSON.parse(request?.line ?? "{}")
    assert.deepStrictEqual(sent, { id: request?.id, method: "turn/interrupt", params: { threadId: codexThreadId(session.attemptDir), turnId: "B" } })
    assert.isTrue(request?.line.endsWith("\n"))
  })

  it("asks nothing when no turn is in progress", () => {
    assert.isUndefined(codexInterrupt.request([], session))
    assert.isUndefined(codexInterrupt.request([started("A"), completed("A", "completed")], session))
  })

  it("reads how that turn ended, and only that turn", () => {
    assert.strictEqual(codexInterrupt.ended(completed("B", "interrupted"), "B"), "interrupted")
    assert.isUndefined(codexInterrupt.ended(completed("A", "interrupted"), "B"))
    assert.isUndefined(codexInterrupt.ended(started("B"), "B"))
    assert.isUndefined(codexInterrupt.ended("not json", "B"))
  })
})
