import { Effect, Schema } from "effect"
import type { Hono } from "hono"
import { findItem } from "../world/issueWrites"
import { addLabels, createLabel, deleteLabel, removeLabel, setLabels } from "../world/labelWrites"
import type { SimItem } from "../world/SimItem"
import type { SimRepository } from "../world/SimRepository"
import type { SimWorld } from "../world/SimWorld"
import { itemLabelJson, labelJson } from "./json/labelJson"
import { paginate } from "./paginate"
import { numberParam, readBody, run, type ApiContext, type ApiEnv } from "./route"

const LabelList = Schema.Array(Schema.Union(Schema.String, Schema.Struct({ name: Schema.String })))

/** GitHub accepts `{labels: [...]}`, a bare array, and strings or `{name}` objects in either. */
const LabelsBody = Schema.Union(Schema.Struct({ labels: Schema.optional(LabelList) }), LabelList)

const NewLabelBody = Schema.Struct({
  name: Schema.String,
  color: Schema.optional(Schema.String),
  description: Schema.optional(Schema.NullOr(Schema.String))
})

const labelNames = (body: typeof LabelsBody.Type): ReadonlyArray<string> => {
  const list = Array.isArray(body) ? body : ((body as { readonly labels?: typeof LabelList.Type }).labels ?? [])
  return list.map((label: string | { readonly name: string }) => (typeof label === "string" ? label : label.name))
}

/** The label catalog and an item's labels. */
export const labelRoutes = (app: Hono<ApiEnv>, world: SimWorld): void => {
  const repoOf = (c: ApiContext) => world.visibleRepository(c.get("user"), c.req.param("owner")!, c.req.param("repo")!)
  const itemLabels = (c: ApiContext, repo: SimRepository, item: SimItem) =>
    c.json(item.labels.map((name) => itemLabelJson(world, repo, name)))
  const writableItem = (c: ApiContext) =>
    Effect.gen(function* () {
      const repo = yield* repoOf(c)
      yield* world.authorize(c.get("user"), repo, "triage", "label issues")
      const item = yield* findItem(repo, yield* numberParam(c, "number"))
      return { repo, item }
    })

  app.get("/repos/:owner/:repo/labels", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const catalog = [...repo.labels.values()].sort((a, b) => a.name.localeCompare(b.name))
      return c.json(paginate(c, world, catalog).map((label) => labelJson(world, repo, label)))
    }))
  )

  app.post("/repos/:owner/:repo/labels", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      yield* world.authorize(c.get("user"), repo, "write", "create labels")
      const label = yield* createLabel(world, repo, yield* readBody(c, NewLabelBody))
      return c.json(labelJson(world, repo, label), 201)
    }))
  )

  app.delete("/repos/:owner/:repo/labels/:name", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      yield* world.authorize(c.get("user"), repo, "write", "delete labels")
      yield* deleteLabel(world, repo, c.req.param("name")!)
      return c.body(null, 204)
    }))
  )

  app.get("/repos/:owner/:repo/issues/:number/labels", (c) =>
    run(c, Effect.gen(function* () {
      const repo = yield* repoOf(c)
      const item = yield* findItem(repo, yield* numberParam(c, "number"))
      return c.json(paginate(c, world, item.labels).map((name) => itemLabelJson(world, repo, name)))
    }))
  )

  /** POST adds the body's labels, PUT replaces the item's with them; both answer with the item's labels. */
  const writeLabels = (write: typeof addLabels | typeof setLabels) => (c: ApiContext) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* writableItem(c)
      const names = labelNames(yield* readBody(c, LabelsBody))
      yield* write(world, repo, item, names, c.get("user").login)
      return itemLabels(c, repo, item)
    }))

  app.post("/repos/:owner/:repo/issues/:number/labels", writeLabels(addLabels))
  app.put("/repos/:owner/:repo/issues/:number/labels", writeLabels(setLabels))

  app.delete("/repos/:owner/:repo/issues/:number/labels/:name", (c) =>
    run(c, Effect.gen(function* () {
      const { repo, item } = yield* writableItem(c)
      yield* removeLabel(world, repo, item, c.req.param("name")!, c.get("user").login)
      return itemLabels(c, repo, item)
    }))
  )
}
