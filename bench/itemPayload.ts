const BODY = [
  "When the worker restarts while an Attempt is running, the board keeps showing the old session and the",
  "operator cannot intervene until the next reconcile. Steps to reproduce: start a long Attempt, restart the",
  "worker host, open the Run page. Expected: the Attempt shows as reattached or failed within a minute.",
  "Acceptance: a test that restarts the worker mid-Attempt and checks the Run page; no change to the ledger schema."
].join(" ")

/**
 * A GraphQL payload slice of an issue as polling stores it (about 2 KB): what the content hash is computed over.
 * `version` changes the content (a label and a comment), as an edit on GitHub would.
 */
export const itemPayload = (repository: string, number: number, version: number) => ({
  __typename: "Issue",
  repository: { nameWithOwner: repository },
  number,
  title: `Worker restart leaves a stale session on the board (#${number})`,
  body: BODY,
  state: "OPEN",
  url: `https://github.com/${repository}/issues/${number}`,
  author: { login: "octocat" },
  createdAt: "2026-10-01T09:00:00Z",
  updatedAt: new Date(Date.UTC(2026, 9, 2) + version * 60_000).toISOString(),
  closedAt: null,
  assignees: { nodes: [{ login: "usine-bot" }] },
  labels: { nodes: [{ name: "ready-for-agent" }, { name: "area/engine" }, { name: `rev-${version}` }] },
  milestone: { title: "1.0" },
  comments: {
    totalCount: 2 + version,
    nodes: Array.from({ length: 2 + Math.min(version, 3) }, (_, i) => ({
      author: { login: i % 2 === 0 ? "octocat" : "hubot" },
      body: `Comment ${i}: I can reproduce this on the SSH worker as well; the session folder is still there.`,
      createdAt: "2026-10-01T10:00:00Z"
    }))
  }
})
