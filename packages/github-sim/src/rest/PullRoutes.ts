import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { listBranches } from "../git/BareRepository"
import { NotFound } from "../world/ApiError"
import { findItem } from "../world/issueWrites"
import { createPull, headBranch, updatePull } from "../world/pullWrites"
import type { SimItem } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { isPull, pullJson, pullSimpleJson } from "./json/pullJson"
import { paginate } from "./paginate"
import { numberParam, readBody, run, type ApiContext, type ApiEnv } from "./route"

const NewPullBody = Schema.Struct({
  title: Schema.String,
  head: Schema.String,
  base: Schema.String,
  body: Schema.optional(Schema.NullOr(Schema.String)),
  draft: Schema.optional(Schema.Boolean),
  maintainer_can_modify: Schema.optional(Schema.Boolean)
})

const PullPatchBody = Schema.Struct({
  title: Schema.optional(Schema.String),
  body: Schema.optional(Schema.NullOr(Schema.String)),
  state: Schema.optional(Schema.Literal("open", "closed")),
  base: Schema.optional(Schema.String),
  maintainer_can_modify: Schema.optional(Schema.Boolean)
})

/** Filters and orders pull requests as `GET /repos/{o}/{r}/pulls` does. */
const listPulls = (c: ApiContext, repo: SimRepository) => {
  const state = c.req.query("state") ?? "open"
  const head = c.req.query("head")
  const headName = head === undefined ? undefined : headBranch(repo, head)
  const base = c.req.query("base")
  const sort = c.req.query("sort") ?? "created"
  // GitHub: descending by default when sorting by creation, ascending otherwise.
  const direction = c.req.query("direction") ?? (sort === "created" ? "desc" : "asc")
  const sign = direction === "asc" ? 1 : -1
  const key = (item: SimItem) => (sort === "updated" ? item.updatedAt : sort === "popularity" ? item.comments.length : item.createdAt)
  return [...repo.items.values()]
    .filter(isPull)
    .filter((item) => state === "all" || item.state === state)
    .filter((item) => head === undefined || item.pull.head === headName)
    .filter((item) => base === undefined || item.pull.base === base)
    .sort((a, b) => sign * (key(a) - key(b) || a.number - b.number))
}

/** Pull requests: list, create, read and update; branches are read from the bare repository. */
export const pullRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  const repoOf = (c: ApiContext) => world.visibleRepository(c.get("user"), c.req.param("owner")!, c.req.param("repo")!)
  const branches = (repo: SimRepository) => Effect.orDie(listBranches(repo.gitDir))
  const pullOf = (c: ApiContext) =>
    Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const number = yield* numberParam(c, "number")
      const item = yield* findItem(repo, number)
      if (!isPull(item)) return yield* Effect.fail(new NotFound({ resource: `pull ${repo.fullName}#${number}` }))
      return { repo, item }
    })

  app.get("/repos/:owner/:repo/pulls", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const viewer = c.get("user").login
      return c.json(paginate(c, world, listPulls(c, repo)).map((item) => pullSimpleJson(world, repo, item, viewer)))
    }))
  )

  app.post("/repos/:owner/:repo/pulls", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const user = c.get("user")
      yield* world.authorize(user, repo, "write", "create pull requests")
      const body = yield* readBody(c, NewPullBody)
      const refs = yield* branches(repo)
      const head = headBranch(repo, body.head)
      const item = yield* createPull(world, repo, user.login, {
        title: body.title,
        body: body.body ?? null,
        head: body.head,
        headSha: head === undefined ? undefined : refs.get(head),
        base: body.base,
        baseSha: refs.get(body.base),
        draft: body.draft ?? false
      })
      if (!isPull(item)) return yield* Effect.die("created pull request has no pull half")
      c.header("Location", `${world.baseUrl}/repos/${repo.fullName}/pulls/${item.number}`)
      return c.json(pullJson(world, repo, item, user.login), 201)
    }))
  )

  app.get("/repos/:owner/:repo/pulls/:number", (c) =>
    run(c, Effect.map(pullOf(c), ({ repo, item }) => c.json(pullJson(world, repo, item, c.get("user").login))))
  )

  app.patch("/repos/:owner/:repo/pulls/:number", (c) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* pullOf(c)
      const user = c.get("user")
      if (user.login.toLowerCase() !== item.author.toLowerCase()) {
        yield* world.authorize(user, repo, "write", "update pull requests")
      }
      const body = yield* readBody(c, PullPatchBody)
      const baseSha = body.base === undefined ? undefined : (yield* branches(repo)).get(body.base)
      yield* updatePull(
        world,
        repo,
        item,
        user.login,
        {
          ...(body.title === undefined ? {} : { title: body.title }),
          ...(body.body === undefined ? {} : { body: body.body }),
          ...(body.state === undefined ? {} : { state: body.state }),
          ...(body.base === undefined ? {} : { base: body.base })
        },
        baseSha
      )
      return c.json(pullJson(world, repo, item, user.login))
    }))
  )
}
