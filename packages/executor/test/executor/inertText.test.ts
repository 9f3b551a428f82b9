import { assert, describe, it } from "@effect/vitest"
import { withoutCode } from "@usine/github-sim/world/withoutCode"
import { fencedSubjects, inertTitle } from "../../src/Harvest/inertText"

describe("the agent's text, made inert", () => {
  it("subjects are fenced with a fence longer than any backtick run; GitHub's reading of the body keeps none of them", () => {
    const subjects = ["abc1234 Closes #12 cc @org/team", "def5678 ```` end the fence? https://evil.example", "0a1b2c3 hidden\u202Eright-to-left\u200B"]
    const quoted = fencedSubjects(subjects)
    assert.isTrue(quoted.startsWith("`````text\n"), quoted)
    assert.isTrue(quoted.endsWith("\n`````"), quoted)
    assert.notMatch(quoted, /[\u202E\u200B]/)
    const read = withoutCode(`Intro.\n\n${quoted}\n\nCloses #1`)
    for (const gone of ["#12", "@org", "evil.example", "hidden"]) assert.notInclude(read, gone)
    assert.include(read, "Closes #1")
  })

  it("a title keeps its words, loses its references, mentions and invisible characters, on one bounded line", () => {
    assert.strictEqual(inertTitle("Closes #12 cc @org/team, fixes GH-4\u202E\nnext"), "Closes 12 cc org/team, fixes GH 4 next")
    assert.strictEqual(inertTitle("Add the feature"), "Add the feature")
    assert.strictEqual(inertTitle("x".repeat(300)).length, 200)
  })
})
