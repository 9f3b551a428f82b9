import type { components } from "@octokit/openapi-types"
import { isoSeconds } from "../../world/SimClock"
import type { SimItem, SimPull } from "../../world/SimItem"
import type { SimRepository } from "../../world/SimRepository"
import type { SimWorld } from "../../world/SimWorld"
import { itemLabelJson } from "./labelJson"
import { embeddedRepositoryJson } from "./repositoryJson"
import { userJson } from "./userJson"

type PullRequest = components["schemas"]["pull-request"]
type PullRequestSimple = components["schemas"]["pull-request-simple"]

const side = (world: SimWorld, repo: SimRepository, viewer: string, ref: string, sha: string) => ({
  label: `${repo.owner}:${ref}`,
  ref,
  sha,
  user: userJson(world, repo.owner),
  repo: embeddedRepositoryJson(world, repo, viewer)
})

/** GitHub's `pull-request-simple` (the items of `GET /pulls`). */
export const pullSimpleJson = (world: SimWorld, repo: SimRepository, item: SimItem & { readonly pull: SimPull }, viewer: string) => {
  const pull = item.pull
  const repoApi = `${world.baseUrl}/repos/${repo.fullName}`
  const url = `${repoApi}/pulls/${item.number}`
  const html = `${world.baseUrl}/${repo.fullName}/pull/${item.number}`
  const issueUrl = `${repoApi}/issues/${item.number}`
  const assignees = item.assignees.map((login) => userJson(world, login))
  const link = (href: string) => ({ href })
  const json = {
    url,
    id: item.pullId,
    node_id: `PR_sim${item.id}`,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueUrl,
    commits_url: `${url}/commits`,
    review_comments_url: `${url}/comments`,
    review_comment_url: `${repoApi}/pulls/comments{/number}`,
    comments_url: `${issueUrl}/comments`,
    statuses_url: `${repoApi}/statuses/${pull.headSha}`,
    number: item.number,
    state: item.state,
    locked: item.locked,
    title: item.title,
    user: userJson(world, item.author),
    body: item.body,
    labels: item.labels.map((name) => {
      const label = itemLabelJson(world, repo, name)
      return { ...label, description: label.description ?? "" }
    }),
    milestone: null,
    active_lock_reason: null,
    created_at: isoSeconds(item.createdAt),
    updated_at: isoSeconds(item.updatedAt),
    closed_at: item.closedAt === null ? null : isoSeconds(item.closedAt),
    merged_at: pull.mergedAt === null ? null : isoSeconds(pull.mergedAt),
    merge_commit_sha: pull.mergeCommitSha,
    assignee: assignees[0] ?? null,
    assignees,
    requested_reviewers: (pull.requestedReviewers ?? []).map((login) => userJson(world, login)),
    requested_teams: [],
    head: side(world, repo, viewer, pull.head, pull.headSha),
    base: side(world, repo, viewer, pull.base, pull.baseSha),
    _links: {
      self: link(url),
      html: link(html),
      issue: link(issueUrl),
      comments: link(`${issueUrl}/comments`),
      review_comments: link(`${url}/comments`),
      review_comment: link(`${repoApi}/pulls/comments{/number}`),
      commits: link(`${url}/commits`),
      statuses: link(`${repoApi}/statuses/${pull.headSha}`)
    },
    author_association: world.association(item.author, repo),
    auto_merge: null,
    draft: pull.draft
  } satisfies PullRequestSimple
  return json
}

/** GitHub's `pull-request` (`GET /pulls/{n}`), with merge state. */
export const pullJson = (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem & { readonly pull: SimPull },
  viewer: string
): PullRequest => {
  const pull = item.pull
  return {
    ...pullSimpleJson(world, repo, item, viewer),
    state: item.state,
    merged: pull.merged,
    mergeable: item.state === "open" ? pull.mergeable : null,
    rebaseable: item.state === "open" ? pull.mergeable : null,
    mergeable_state: pull.mergeableState,
    merged_by: pull.mergedBy === null ? null : userJson(world, pull.mergedBy),
    comments: item.comments.length,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0
  }
}

/** Narrows an item to a pull request. */
export const isPull = (item: SimItem): item is SimItem & { readonly pull: SimPull } => item.pull !== undefined
