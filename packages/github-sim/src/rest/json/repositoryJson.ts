import type { components } from "@octokit/openapi-types"
import { isoSeconds } from "../../world/SimClock"
import type { SimRepository } from "../../world/SimRepository"
import { atLeast } from "../../world/SimUser"
import type { SimWorld } from "../../world/SimWorld"
import { userJson } from "./userJson"

type FullRepository = components["schemas"]["full-repository"]

/** The real-git URL of the repository: the emulator serves it through `git http-backend`. */
export const cloneUrl = (world: SimWorld, repo: SimRepository): string => `${world.baseUrl}/${repo.fullName}.git`

const repositoryFields = (world: SimWorld, repo: SimRepository, viewer: string) => {
  const api = `${world.baseUrl}/repos/${repo.fullName}`
  const held = world.permission(viewer, repo)
  const openIssues = [...repo.items.values()].filter((item) => item.state === "open").length
  return {
    id: repo.id,
    node_id: `R_sim${repo.id}`,
    name: repo.name,
    full_name: repo.fullName,
    owner: userJson(world, repo.owner),
    private: repo.isPrivate,
    html_url: `${world.baseUrl}/${repo.fullName}`,
    description: repo.description,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: cloneUrl(world, repo).replace(/^http/, "git"),
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@${new URL(world.baseUrl).host}:${repo.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: cloneUrl(world, repo),
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: `${world.baseUrl}/${repo.fullName}`,
    homepage: null,
    language: null,
    forks_count: 0,
    stargazers_count: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues_count: openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: repo.isPrivate ? "private" : "public",
    pushed_at: isoSeconds(repo.pushedAt),
    created_at: isoSeconds(repo.createdAt),
    updated_at: isoSeconds(repo.updatedAt),
    permissions: {
      admin: atLeast(held, "admin"),
      maintain: atLeast(held, "maintain"),
      push: atLeast(held, "write"),
      triage: atLeast(held, "triage"),
      pull: atLeast(held, "read")
    },
    allow_rebase_merge: true,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    forks: 0,
    open_issues: openIssues,
    watchers: 0
  }
}

/** GitHub's `full-repository`, with `permissions` as seen by `viewer`. */
export const repositoryJson = (world: SimWorld, repo: SimRepository, viewer: string): FullRepository => ({
  ...repositoryFields(world, repo, viewer),
  subscribers_count: 0,
  network_count: 0
})

/** GitHub's `repository` (embedded in pull requests' head and base). */
export const embeddedRepositoryJson = (
  world: SimWorld,
  repo: SimRepository,
  viewer: string
): components["schemas"]["repository"] => repositoryFields(world, repo, viewer)
