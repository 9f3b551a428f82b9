import { describe, expect, it } from "@effect/vitest"
import { schema } from "@octokit/graphql-schema"
import { buildClientSchema, parse, validate as validateDocument } from "graphql"
import { ALL_QUERIES, itemsQuery } from "@usine/github/queries/itemQueries"

const github = buildClientSchema(schema.json as never)

/** GitHub's published schema checks the document (graphql-js itself, without graphql-tag's global fragment registry). */
const validate = (document: string) => validateDocument(github, parse(document)).map((e) => e.message)

describe("GraphQL documents usine sends", () => {
  it.each(Object.entries(ALL_QUERIES))("%s is valid against GitHub's published schema", (_name, document) => {
    expect(validate(document)).toEqual([])
  })

  it("the check itself rejects a field GitHub does not have", () => {
    const broken = ALL_QUERIES["ITEMS_QUERY_MIXED"]!.replace("stateReason", "stateReasonz")
    expect(validate(broken)).toEqual(['Cannot query field "stateReasonz" on type "Issue". Did you mean "stateReason"?'])
  })

  it("a batch document names each Item by an alias and carries only the fragments it uses", () => {
    const issuesOnly = itemsQuery([
      { number: 4, kind: "issue" },
      { number: 9, kind: "issue" }
    ])
    expect(issuesOnly).toContain("i4: issue(number: 4)")
    expect(issuesOnly).toContain("i9: issue(number: 9)")
    expect(issuesOnly).not.toContain("fragment UsinePullRequestFields")
    expect(validate(issuesOnly)).toEqual([])
  })
})
