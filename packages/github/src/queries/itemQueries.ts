/**
 * Every GraphQL document usine sends. Each is validated against GitHub's published schema in a test
 * (`test/queries.test.ts`), so a field GitHub does not have fails the build, not the first poll.
 */

const actor = "author { login }"
const comments = `comments(last: 50) { totalCount nodes { body createdAt authorAssociation ${actor} } }`
const labels = "labels(first: 100) { nodes { name } }"
const assignees = "assignees(first: 20) { nodes { login } }"
/** Who last edited the body, and when: trust needs it, the Loop's view leaves it out (ADR 0055). */
const lastEdit = "lastEditedAt editor { login }"

/** The payload slice of an issue: what `if:`, the prompt and the content hash see. */
const ISSUE_FIELDS = `fragment UsineIssueFields on Issue {
  __typename number title body state stateReason url createdAt updatedAt closedAt authorAssociation
  ${actor}
  ${lastEdit}
  ${labels}
  ${assignees}
  ${comments}
}`

/**
 * CI on the head commit (check runs and commit statuses, through the rollup) and the inline review threads: what
 * feedback Loops read (`item.checks`, `item.reviewThreads`).
 */
const feedback = `commits(last: 1) { nodes { commit { statusCheckRollup { contexts(first: 100) { nodes {
    __typename
    ... on CheckRun { name status conclusion detailsUrl }
    ... on StatusContext { context state targetUrl }
  } } } } } }
  reviewThreads(first: 50) { nodes { isResolved path line
    comments(first: 1) { nodes { body url createdAt authorAssociation ${actor} } } } }`

/** The payload slice of a pull request, with what review Loops need. */
const PULL_REQUEST_FIELDS = `fragment UsinePullRequestFields on PullRequest {
  __typename number title body state url createdAt updatedAt closedAt mergedAt authorAssociation
  isDraft merged mergeable reviewDecision headRefName headRefOid baseRefName
  ${actor}
  ${lastEdit}
  ${labels}
  ${assignees}
  ${comments}
  reviews(last: 20) { nodes { state body submittedAt authorAssociation ${actor} } }
  ${feedback}
}`

export interface ItemTarget {
  readonly number: number
  readonly kind: "issue" | "pull_request"
}

/** The alias under `repository` that answers for one Item in `itemsQuery`. */
export const aliasOf = (target: ItemTarget): string => `${target.kind === "issue" ? "i" : "p"}${target.number}`

/**
 * The payload slices of several Items of one repository in one document: one aliased field per Item. Numbers are
 * inlined (they are integers), and only the fragments used are appended, as GraphQL requires.
 */
export const itemsQuery = (targets: ReadonlyArray<ItemTarget>): string => {
  const fields = targets.map((target) =>
    target.kind === "issue"
      ? `${aliasOf(target)}: issue(number: ${Math.trunc(target.number)}) { ...UsineIssueFields }`
      : `${aliasOf(target)}: pullRequest(number: ${Math.trunc(target.number)}) { ...UsinePullRequestFields }`
  )
  const fragments = [
    ...(targets.some((t) => t.kind === "issue") ? [ISSUE_FIELDS] : []),
    ...(targets.some((t) => t.kind === "pull_request") ? [PULL_REQUEST_FIELDS] : [])
  ]
  return `query UsineItems($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    ${fields.join("\n    ")}
  }
}
${fragments.join("\n")}`
}

export const ALL_QUERIES: Readonly<Record<string, string>> = {
  ITEMS_QUERY_ISSUE: itemsQuery([{ number: 1, kind: "issue" }]),
  ITEMS_QUERY_PULL_REQUEST: itemsQuery([{ number: 2, kind: "pull_request" }]),
  ITEMS_QUERY_MIXED: itemsQuery([
    { number: 1, kind: "issue" },
    { number: 2, kind: "pull_request" },
    { number: 3, kind: "issue" }
  ])
}
