import { assert, describe, it } from "@effect/vitest"
import { BODY_OUTPUT_CHARS, verificationSection } from "../../src/Harvest/verificationSection"
import { VerifyEntry } from "../../src/WorkerExecutor/AttemptJournal"
import { makeRedactor } from "@usine/core/text/Redactor"

const GHP = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`
const redactor = makeRedactor(["the-daemon-secret-value"])

const round = (number: number, results: VerifyEntry["results"]) => new VerifyEntry({ at: 0, round: number, results })

describe("verificationSection", () => {
  it("names every command of the passing round with its time, and shows a fixed failure's tail, redacted", () => {
    const output = `${"x".repeat(BODY_OUTPUT_CHARS * 2)}\nFAIL token ${GHP} and the-daemon-secret-value\n\`\`\`\nnot the end`
    const section = verificationSection({
      commands: ["npm test", "npm run lint"],
      redactor,
      rounds: [
        round(1, [{ command: "npm test", passed: false, exitCode: 1, output, durationMs: 3_140 }]),
        round(2, [
          { command: "npm test", passed: true, exitCode: 0, output: "ok", durationMs: 12_345 },
          { command: "npm run lint", passed: true, exitCode: 0, output: "" }
        ])
      ]
    })
    assert.include(section, "### Verification\n\nEvery `verify:` command passed in round 2, after 1 failed round the agent fixed.")
    assert.include(section, "- passed in 12.3 s: `npm test`\n- passed: `npm run lint`")
    assert.include(section, "<details><summary>Round 1: npm test failed (exit 1)</summary>")
    assert.include(section, "[REDACTED:")
    assert.notInclude(section, GHP)
    assert.notInclude(section, "the-daemon-secret-value")
    assert.include(section, "````text\n…\n", "a fence longer than the output's own, the tail only")
    assert.isBelow(section.length, BODY_OUTPUT_CHARS + 600)
  })

  it("says so when the Loop verifies nothing, or when no round ran", () => {
    assert.include(verificationSection({ commands: [], rounds: [], redactor }), "The Loop has no `verify:` commands")
    assert.include(verificationSection({ commands: ["make check"], rounds: [], redactor }), "were not run")
  })

  it("quotes a command holding backticks so that it stays one code span", () => {
    const section = verificationSection({
      commands: ["echo `date`"],
      redactor,
      rounds: [round(1, [{ command: "echo `date`", passed: true, exitCode: 0, output: "" }])]
    })
    assert.include(section, "- passed: `` echo `date` ``")
  })
})
