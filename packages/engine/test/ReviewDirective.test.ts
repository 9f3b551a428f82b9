import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { Attempt } from "@usine/core/attempt/Attempt"
import { ChangesRequested, ReviewApproved } from "@usine/core/attempt/Review"
import { attemptIdOf } from "@usine/core/ids/AttemptId"
import { RunId } from "@usine/core/ids/RunId"
import { changesPrompt, reviewDirectiveOf } from "@usine/engine/ReviewDirective"
import type { HeldAttempt } from "@usine/store/AttemptPatches"

const runId = RunId("r".repeat(32))
const held = (review: HeldAttempt["review"], subjects?: ReadonlyArray<string>): Option.Option<HeldAttempt> =>
  Option.some({
    attempt: new Attempt({ id: attemptIdOf(runId, 2), runId, step: "main", number: 2, startedAt: 0 }),
    held: { worker: "local", head: "abc", ref: "refs/usine/salvage/r/2", verification: "ok 1 - tests", ...(subjects === undefined ? {} : { subjects }) },
    patch: { text: "", cut: false },
    review
  })

describe("what the Attempt after the pull-request gate does", () => {
  it("nothing before a review; publish after Approve PR; the text after Request changes", () => {
    assert.strictEqual(reviewDirectiveOf(Option.none()), undefined)
    assert.strictEqual(reviewDirectiveOf(held(Option.none())), undefined)
    assert.deepStrictEqual(reviewDirectiveOf(held(Option.some(new ReviewApproved({ at: 1 })))), { _tag: "Publish", heldAttempt: 2, head: "abc", verification: "ok 1 - tests" })
    assert.deepStrictEqual(reviewDirectiveOf(held(Option.some(new ChangesRequested({ text: "add a test", at: 1 })))), {
      _tag: "Changes",
      heldAttempt: 2,
      text: "add a test"
    })
    // The agent's subjects kept with the held work go to the publishing Attempt: its pull request is titled after them.
    assert.deepStrictEqual(reviewDirectiveOf(held(Option.some(new ReviewApproved({ at: 1 })), ["1a2b3c4 Add deslugify"])), {
      _tag: "Publish",
      heldAttempt: 2,
      head: "abc",
      verification: "ok 1 - tests",
      subjects: ["1a2b3c4 Add deslugify"]
    })
    const prompt = changesPrompt("fix #7", "add a test")
    assert.isTrue(prompt.startsWith("fix #7") && prompt.includes("add a test"))
  })
})
