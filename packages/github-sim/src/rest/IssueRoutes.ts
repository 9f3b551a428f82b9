import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { addComment, createIssue, findItem, updateIssue } from "../world/issueWrites"
import type { SimItem } from "../world/SimItem"
import { atLeast } from "../world/SimUser"
import type { SimWorld } from "../world/SimWorld"
import { eventJson, timelineJson } from "./json/eventJson"
import { commentJson, issueJson } from "./json/issueJson"
import { paginate } from "./paginate"
import { numberParam, readBody, run, type ApiContext, type ApiEnv } from "./route"

const LabelNames = Schema.Array(Schema.Union(Schema.String, Schema.Struct({ name: Schema.String })))
const names = (labels: typeof LabelNames.Type | undefined) => labels?.map((label) => (typeof label === "string" ? label : label.name))

const NewIssueBody = Schema.Struct({
  title: Schema.Union(Schema.String, Schema.Number),
  body: Schema.optional(Schema.NullOr(Schema.String)),
  labels: Schema.optional(LabelNames),
  assignees: Schema.optional(Schema.Array(Schema.String)),
  assignee: Schema.optional(Schema.NullOr(Schema.String))
})

const IssuePatchBody = Schema.Struct({
  title: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  body: Schema.optional(Schema.NullOr(Schema.String)),
  state: Schema.optional(Schema.Literal("open", "closed")),
  state_reason: Schema.optional(Schema.NullOr(Schema.Literal("completed", "not_planned", "reopened"))),
  labels: Schema.optional(LabelNames),
  assignees: Schema.optional(Schema.Array(Schema.String))
})

const CommentBody = Schema.Struct({ body: Schema.String })

const assigned = (item: SimItem, assignee: string | undefined) => {
  if (assignee === undefined) return true
  if (assignee === "*") return item.assignees.length > 0
  if (assignee === "none") return item.assignees.length === 0
  return item.assignees.some((login) => login.toLowerCase() === assignee)
}

/** Filters and orders items as `GET /repos/{o}/{r}/issues` does (pull requests included). */
const listIssues = (c: ApiContext, items: ReadonlyArray<SimItem>): ReadonlyArray<SimItem> => {
  const state = c.req.query("state") ?? "open"
  const labels = (c.req.query("labels") ?? "").split(",").map((l) => l.trim().toLowerCase()).filter((l) => l !== "")
  const since = c.req.query("since")
  const sinceSeconds = since === undefined ? undefined : Math.floor(new Date(since).getTime() / 1000)
  const creator = c.req.query("creator")?.toLowerCase()
  const assignee = c.req.query("assignee")?.toLowerCase()
  const sort = c.req.query("sort") ?? "created"
  const sign = (c.req.query("direction") ?? "desc") === "asc" ? 1 : -1
  const key = (item: SimItem) =>
    sort === "updated" ? item.updatedAt : sort === "comments" ? item.comments.length : item.createdAt
  return items
    .filter((item) => state === "all" || item.state === state)
    .filter((item) => labels.every((label) => item.labels.some((has) => has.toLowerCase() === label)))
    .filter((item) => sinceSeconds === undefined || Number.isNaN(sinceSeconds) || Math.floor(item.updatedAt / 1000) >= sinceSeconds)
    .filter((item) => creator === undefined || item.author.toLowerCase() === creator)
    .filter((item) => assigned(item, assignee))
    .sort((a, b) => sign * (key(a) - key(b) || a.number - b.number))
}

/** Issues, their comments, events and timeline. */
export const issueRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  const repoOf = (c: ApiContext) => world.visibleRepository(c.get("user"), c.req.param("owner")!, c.req.param("repo")!)
  const itemOf = (c: ApiContext) =>
    Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const item = yield* findItem(repo, yield* numberParam(c, "number"))
      return { repo, item }
    })

  app.get("/repos/:owner/:repo/issues", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const page = paginate(c, world, listIssues(c, [...repo.items.values()]))
      return c.json(page.map((item) => issueJson(world, repo, item)))
    }))
  )

  app.post("/repos/:owner/:repo/issues", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const user = c.get("user")
      const body = yield* readBody(c, NewIssueBody)
      // Without triage rights GitHub silently drops labels and assignees.
      const triage = atLeast(world.permission(user.login, repo), "triage")
      const assignees = body.assignees ?? (body.assignee == null ? undefined : [body.assignee])
      const labels = names(body.labels)
      const item = yield* createIssue(world, repo, user.login, {
        title: String(body.title),
        body: body.body ?? null,
        ...(triage && labels !== undefined ? { labels } : {}),
        ...(triage && assignees !== undefined ? { assignees } : {})
      })
      c.header("Location", `${world.baseUrl}/repos/${repo.fullName}/issues/${item.number}`)
      return c.json(issueJson(world, repo, item), 201)
    }))
  )

  app.get("/repos/:owner/:repo/issues/:number", (c) =>
    run(c, Effect.map(itemOf(c), ({ repo, item }) => c.json(issueJson(world, repo, item))))
  )

  app.patch("/repos/:owner/:repo/issues/:number", (c) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* itemOf(c)
      const user = c.get("user")
      const body = yield* readBody(c, IssuePatchBody)
      const triage = atLeast(world.permission(user.login, repo), "triage")
      if (!triage && user.login.toLowerCase() !== item.author.toLowerCase()) {
        yield* world.authorize(user, repo, "triage", "update issue")
      }
      const labels = names(body.labels)
      yield* updateIssue(world, repo, item, user.login, {
        ...(body.title === undefined ? {} : { title: String(body.title) }),
        ...(body.body === undefined ? {} : { body: body.body }),
        ...(body.state === undefined ? {} : { state: body.state }),
        ...(body.state_reason === undefined ? {} : { stateReason: body.state_reason }),
        ...(triage && labels !== undefined ? { labels } : {}),
        ...(triage && body.assignees !== undefined ? { assignees: body.assignees } : {})
      })
      return c.json(issueJson(world, repo, item))
    }))
  )

  app.get("/repos/:owner/:repo/issues/:number/comments", (c) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* itemOf(c)
      const since = c.req.query("since")
      const sinceMs = since === undefined ? Number.NEGATIVE_INFINITY : Math.floor(new Date(since).getTime() / 1000) * 1000
      const comments = item.comments.filter((comment) => Math.floor(comment.updatedAt / 1000) * 1000 >= sinceMs)
      return c.json(paginate(c, world, comments).map((comment) => commentJson(world, repo, item, comment)))
    }))
  )

  app.post("/repos/:owner/:repo/issues/:number/comments", (c) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* itemOf(c)
      const body = yield* readBody(c, CommentBody)
      const comment = yield* addComment(world, item, c.get("user").login, body.body)
      return c.json(commentJson(world, repo, item, comment), 201)
    }))
  )

  app.get("/repos/:owner/:repo/issues/:number/events", (c) =>
    run(c, Effect.map(itemOf(c), ({ repo, item }) =>
      c.json(paginate(c, world, item.events).map((event) => eventJson(world, repo, event)))
    ))
  )

  app.get("/repos/:owner/:repo/issues/:number/timeline", (c) =>
    run(c, Effect.map(itemOf(c), ({ repo, item }) => c.json(paginate(c, world, timelineJson(world, repo, item)))))
  )
}
