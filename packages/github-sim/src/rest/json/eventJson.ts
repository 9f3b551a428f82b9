import type { components } from "@octokit/openapi-types"
import { isoSeconds } from "../../world/SimClock"
import type { SimEvent, SimItem } from "../../world/SimItem"
import type { SimRepository } from "../../world/SimRepository"
import type { SimWorld } from "../../world/SimWorld"
import { commentJson } from "./issueJson"
import { userJson } from "./userJson"

type IssueEvent = components["schemas"]["labeled-issue-event"] | components["schemas"]["state-change-issue-event"]
type TimelineEvent = components["schemas"]["timeline-issue-events"]

/** GitHub's issue event (`/issues/{n}/events`); labeled and unlabeled events carry the label. */
export const eventJson = (world: SimWorld, repo: SimRepository, event: SimEvent): IssueEvent => {
  const commitId = event.commitId ?? null
  const base = {
    id: event.id,
    node_id: `${event.event === "labeled" ? "LE" : "E"}_sim${event.id}`,
    url: `${world.baseUrl}/repos/${repo.fullName}/issues/events/${event.id}`,
    actor: userJson(world, event.actor),
    event: event.event,
    commit_id: commitId,
    commit_url: commitId === null ? null : `${world.baseUrl}/repos/${repo.fullName}/commits/${commitId}`,
    created_at: isoSeconds(event.createdAt),
    performed_via_github_app: null
  }
  return event.label === undefined ? base : { ...base, label: { name: event.label.name, color: event.label.color } }
}

/** The item's timeline: its events and comments (`commented` entries) in time order. */
export const timelineJson = (world: SimWorld, repo: SimRepository, item: SimItem): Array<TimelineEvent> => {
  const entries: Array<{ readonly at: number; readonly id: number; readonly json: TimelineEvent }> = [
    ...item.events.map((event) => ({ at: event.createdAt, id: event.id, json: eventJson(world, repo, event) })),
    ...item.comments.map((comment) => {
      const json = commentJson(world, repo, item, comment)
      const user = userJson(world, comment.author)
      return {
        at: comment.createdAt,
        id: comment.id,
        json: {
          ...json,
          id: comment.id,
          event: "commented",
          actor: user,
          user,
          author_association: world.association(comment.author, repo)
        } satisfies components["schemas"]["timeline-comment-event"]
      }
    })
  ]
  return entries.sort((a, b) => a.at - b.at || a.id - b.id).map((entry) => entry.json)
}
