import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import fc from "fast-check"
import { branchSegment, runBranchName, salvageBranchName } from "../../src/Harvest/branchName"

const validRef = (name: string): boolean => {
  try {
    execFileSync("git", ["check-ref-format", `refs/heads/${name}`])
    return true
  } catch {
    return false
  }
}

describe("branch names", () => {
  it("name the Run's branch from its Loop, Item and id, and its salvage from the Attempt", () => {
    assert.strictEqual(runBranchName({ loop: "start-dev", number: 42, id: "0123456789abcdef" }), "usine/start-dev/42-01234567")
    assert.strictEqual(runBranchName({ loop: "nightly", number: undefined, id: "fedcba9876543210" }), "usine/nightly/tick-fedcba98")
    assert.strictEqual(salvageBranchName("0123456789abcdef", 3), "usine/salvage/0123456789abcdef/3")
  })

  it("are always refs git accepts, whatever the Loop is called", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.option(fc.nat(), { nil: undefined }), (loop, number) =>
        validRef(runBranchName({ loop, number, id: "0123456789abcdef" }))
      ),
      { numRuns: 60 }
    )
    for (const nasty of ["..", ".lock", "a..b", "-x", "x.lock", "a b~c^d:e?f*g[h\\", "@{", "ü", ""]) {
      assert.isTrue(validRef(`usine/${branchSegment(nasty)}/1-x`), nasty)
    }
  })
})
