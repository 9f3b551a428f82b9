import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { NotFound, Unprocessable } from "../world/ApiError"
import { findItem } from "../world/issueWrites"
import type { SimWorld } from "../world/SimWorld"
import { commentJson } from "./json/issueJson"
import { isPull, pullJson } from "./json/pullJson"
import { numberParam, readBody, run, type ApiContext, type ApiEnv } from "./route"

const CommentBody = Schema.Struct({ body: Schema.String })
const ReviewersBody = Schema.Struct({
  reviewers: Schema.optional(Schema.Array(Schema.String)),
  team_reviewers: Schema.optional(Schema.Array(Schema.String))
})

/** The writes a bot makes around its pull requests: editing its own comment, requesting reviewers. */
export const writeBackRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  const repoOf = (c: ApiContext) => world.visibleRepository(c.get("user"), c.req.param("owner")!, c.req.param("repo")!)

  app.patch("/repos/:owner/:repo/issues/comments/:id", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const id = yield* numberParam(c, "id")
      const user = c.get("user")
      for (const item of repo.items.values()) {
        const comment = item.comments.find((candidate) => candidate.id === id)
        if (comment === undefined) continue
        if (comment.author.toLowerCase() !== user.login.toLowerCase()) {
          yield* world.authorize(user, repo, "write", "update comments of others")
        }
        const body = yield* readBody(c, CommentBody)
        if (body.body.trim() === "") {
          return yield* Effect.fail(new Unprocessable({ errors: [{ resource: "IssueComment", field: "body", code: "missing_field" }] }))
        }
        comment.body = body.body
        comment.updatedAt = world.now()
        item.updatedAt = comment.updatedAt
        return c.json(commentJson(world, repo, item, comment))
      }
      return yield* Effect.fail(new NotFound({ resource: `comment ${id}` }))
    }))
  )

  app.post("/repos/:owner/:repo/pulls/:number/requested_reviewers", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const user = c.get("user")
      yield* world.authorize(user, repo, "write", "request reviewers")
      const item = yield* findItem(repo, yield* numberParam(c, "number"))
      if (!isPull(item)) return yield* Effect.fail(new NotFound({ resource: `pull ${repo.fullName}#${item.number}` }))
      const body = yield* readBody(c, ReviewersBody)
      const requested = item.pull.requestedReviewers ?? []
      for (const login of body.reviewers ?? []) {
        // GitHub: the author cannot review their own pull request, and a reviewer must be able to read the repository.
        if (login.toLowerCase() === item.author.toLowerCase() || !world.users.has(login.toLowerCase())) {
          return yield* Effect.fail(new Unprocessable({ errors: [], summary: "Reviews may only be requested from collaborators." }))
        }
        if (!requested.some((known) => known.toLowerCase() === login.toLowerCase())) requested.push(login)
      }
      item.pull.requestedReviewers = requested
      item.updatedAt = world.now()
      return c.json(pullJson(world, repo, item, user.login), 201)
    }))
  )
}
