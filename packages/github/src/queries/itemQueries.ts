/**
 * Every GraphQL document usine sends. Each is validated against GitHub's published schema in a test
 * (`test/queries.test.ts`), so a field GitHub does not have fails the build, not the first poll.
 */

const actor = "author { login }"
const comments = `comments(last: 50) { totalCount nodes { body createdAt authorAssociation ${actor} } }`
const labels = "labels(first: 100) { nodes { name } }"
const assignees = "assignees(first: 20) { nodes { login } }"

/** The payload slice of an issue: what `if:`, the prompt and the content hash see. */
export const ISSUE_QUERY = `query UsineIssue($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      number title body state stateReason url createdAt updatedAt closedAt authorAssociation
      ${actor}
      ${labels}
      ${assignees}
      ${comments}
    }
  }
}`

/** The payload slice of a pull request, with what review Loops need. */
export const PULL_REQUEST_QUERY = `query UsinePullRequest($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number title body state url createdAt updatedAt closedAt mergedAt authorAssociation
      isDraft merged mergeable reviewDecision headRefName headRefOid baseRefName
      ${actor}
      ${labels}
      ${assignees}
      ${comments}
      reviews(last: 20) { nodes { state body submittedAt authorAssociation ${actor} } }
    }
  }
}`

/** Who added a label, for trigger trust: the newest labeled events of an Item. */
export const LABEL_EVENTS_QUERY = `query UsineLabelEvents($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issueOrPullRequest(number: $number) {
      ... on Issue { timelineItems(last: 50, itemTypes: [LABELED_EVENT]) { nodes { ... on LabeledEvent { createdAt label { name } actor { login } } } } }
      ... on PullRequest { timelineItems(last: 50, itemTypes: [LABELED_EVENT]) { nodes { ... on LabeledEvent { createdAt label { name } actor { login } } } } }
    }
  }
}`

export const ALL_QUERIES: Readonly<Record<string, string>> = {
  ISSUE_QUERY,
  PULL_REQUEST_QUERY,
  LABEL_EVENTS_QUERY
}
