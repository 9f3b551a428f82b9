import type { components } from "@octokit/openapi-types"
import { isoSeconds } from "../../world/SimClock"
import type { SimComment, SimItem } from "../../world/SimItem"
import type { SimRepository } from "../../world/SimRepository"
import type { SimWorld } from "../../world/SimWorld"
import { itemLabelJson } from "./labelJson"
import { userJson } from "./userJson"

const noReactions = (url: string): components["schemas"]["reaction-rollup"] => ({
  url,
  total_count: 0,
  "+1": 0,
  "-1": 0,
  laugh: 0,
  confused: 0,
  heart: 0,
  hooray: 0,
  eyes: 0,
  rocket: 0
})

/** GitHub's `issue`; a pull request appears as an issue with a `pull_request` key, as in issue listings. */
export const issueJson = (world: SimWorld, repo: SimRepository, item: SimItem): components["schemas"]["issue"] => {
  const repoApi = `${world.baseUrl}/repos/${repo.fullName}`
  const url = `${repoApi}/issues/${item.number}`
  const html = `${world.baseUrl}/${repo.fullName}/${item.pull === undefined ? "issues" : "pull"}/${item.number}`
  const assignees = item.assignees.map((login) => userJson(world, login))
  return {
    id: item.id,
    node_id: `${item.pull === undefined ? "I" : "PR"}_sim${item.id}`,
    url,
    repository_url: repoApi,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: html,
    number: item.number,
    state: item.state,
    state_reason: item.stateReason,
    title: item.title,
    body: item.body,
    user: userJson(world, item.author),
    labels: item.labels.map((name) => itemLabelJson(world, repo, name)),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: item.locked,
    active_lock_reason: null,
    comments: item.comments.length,
    ...(item.pull === undefined
      ? {}
      : {
          pull_request: {
            url: `${repoApi}/pulls/${item.number}`,
            html_url: html,
            diff_url: `${html}.diff`,
            patch_url: `${html}.patch`,
            merged_at: item.pull.mergedAt === null ? null : isoSeconds(item.pull.mergedAt)
          },
          draft: item.pull.draft
        }),
    closed_at: item.closedAt === null ? null : isoSeconds(item.closedAt),
    created_at: isoSeconds(item.createdAt),
    updated_at: isoSeconds(item.updatedAt),
    closed_by: item.closedBy === null ? null : userJson(world, item.closedBy),
    timeline_url: `${url}/timeline`,
    performed_via_github_app: null,
    author_association: world.association(item.author, repo),
    reactions: noReactions(`${url}/reactions`)
  }
}

/** GitHub's `issue-comment`. */
export const commentJson = (
  world: SimWorld,
  repo: SimRepository,
  item: SimItem,
  comment: SimComment
): components["schemas"]["issue-comment"] => {
  const repoApi = `${world.baseUrl}/repos/${repo.fullName}`
  const kind = item.pull === undefined ? "issues" : "pull"
  return {
    id: comment.id,
    node_id: `IC_sim${comment.id}`,
    url: `${repoApi}/issues/comments/${comment.id}`,
    html_url: `${world.baseUrl}/${repo.fullName}/${kind}/${item.number}#issuecomment-${comment.id}`,
    body: comment.body,
    user: userJson(world, comment.author),
    created_at: isoSeconds(comment.createdAt),
    updated_at: isoSeconds(comment.updatedAt),
    issue_url: `${repoApi}/issues/${item.number}`,
    author_association: world.association(comment.author, repo),
    performed_via_github_app: null,
    reactions: noReactions(`${repoApi}/issues/comments/${comment.id}/reactions`)
  }
}
