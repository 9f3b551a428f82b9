import { describe, expect, it } from "@effect/vitest"
import { validate } from "@octokit/graphql-schema"
import { ALL_QUERIES } from "@usine/github/queries/itemQueries"

describe("GraphQL documents usine sends", () => {
  it.each(Object.entries(ALL_QUERIES))("%s is valid against GitHub's published schema", (_name, document) => {
    expect(validate(document).map((e) => e.message)).toEqual([])
  })

  it("the check itself rejects a field GitHub does not have", () => {
    const broken = ALL_QUERIES["ISSUE_QUERY"]!.replace("stateReason", "stateReasonz")
    expect(validate(broken).map((e) => e.message)).toEqual([
      'Cannot query field "stateReasonz" on type "Issue". Did you mean "stateReason"?'
    ])
  })
})
