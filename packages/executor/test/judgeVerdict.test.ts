import { assert, describe, it } from "@effect/vitest"
import { judgeFeedback, judgePrompt, parseVerdict } from "@usine/executor/WorkerExecutor/judgeVerdict"

describe("the judge's answer", () => {
  it("reads the last line's verdict and the reasoning above it", () => {
    assert.deepStrictEqual(parseVerdict("looks right\nall tests pass\n\nVERDICT: pass\n\n"), { verdict: "pass", reasoning: "looks right\nall tests pass" })
    assert.deepStrictEqual(parseVerdict("no test for the bug\nverdict: Feedback"), { verdict: "feedback", reasoning: "no test for the bug" })
  })

  it("counts an answer without a final verdict line as feedback, with what it said", () => {
    const mid = parseVerdict("VERDICT: pass\nactually, no")
    assert.strictEqual(mid.verdict, "feedback")
    assert.include(mid.reasoning, "actually, no")
    assert.deepStrictEqual(parseVerdict(""), { verdict: "feedback", reasoning: "the judge gave no verdict" })
  })

  it("asks with the task, the diff and the verify output; feeds the reasoning back", () => {
    const prompt = judgePrompt({ task: "fix #7", diff: "+++ b/a.txt\n+x", verify: "$ npm test (exit 0)" })
    for (const part of ["fix #7", "+++ b/a.txt", "$ npm test (exit 0)", "VERDICT: pass", "VERDICT: feedback"]) assert.include(prompt, part)
    assert.include(judgeFeedback({ verdict: "feedback", reasoning: "add a test" }), "add a test")
  })
})
