import { Effect, Schema } from "effect"
import {
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLFieldResolver
} from "graphql"
import type { Hono } from "hono"
import type { RateLimits } from "../http/RateLimits"
import { readBody, run, type ApiEnv } from "../rest/route"
import { atLeast } from "../world/SimUser"
import type { SimUser } from "../world/SimUser"
import type { SimWorld } from "../world/SimWorld"
import { actorNode } from "./actorNode"
import { githubSchema } from "./githubSchema"
import { repositoryNode } from "./repositoryNode"

const GraphqlBody = Schema.Struct({
  query: Schema.String,
  variables: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  operationName: Schema.optional(Schema.NullOr(Schema.String))
})

/** GitHub lifts an error's `type` (NOT_FOUND, ...) to the top level of the error entry. */
const formatError = (error: GraphQLError) => {
  const json = error.toJSON()
  const type = error.extensions["type"]
  return typeof type === "string" ? { type, ...json } : json
}

/** Fields the emulator does not serve fail with a message naming them, rather than a silent null. */
const strictResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  if (typeof source !== "object" || source === null || !(info.fieldName in source)) {
    throw new GraphQLError(`github-sim does not emulate ${info.parentType.name}.${info.fieldName}`, {
      extensions: { type: "NOT_EMULATED" }
    })
  }
  const value = (source as Record<string, unknown>)[info.fieldName]
  return typeof value === "function" ? value(args, context, info) : value
}

const rootValue = (world: SimWorld, limits: RateLimits, viewer: SimUser) => ({
  viewer: () => actorNode(world, viewer.login),
  rateLimit: () => {
    const bucket = limits.bucket(viewer, "graphql")
    return {
      cost: 1,
      limit: bucket.limit,
      remaining: bucket.limit - bucket.used,
      used: bucket.used,
      nodeCount: 0,
      resetAt: new Date(bucket.resetAt).toISOString().replace(/\.\d{3}Z$/, "Z")
    }
  },
  repository: ({ owner, name }: { readonly owner: string; readonly name: string }) => {
    const repo = world.repositories.get(`${owner}/${name}`.toLowerCase())
    if (repo === undefined || (repo.isPrivate && !atLeast(world.permission(viewer.login, repo), "read"))) {
      throw new GraphQLError(`Could not resolve to a Repository with the name '${owner}/${name}'.`, {
        extensions: { type: "NOT_FOUND" }
      })
    }
    return repositoryNode(world, repo)
  }
})

/** `POST /graphql`: parsed and validated against GitHub's published schema, then executed on the emulator's data. */
export const graphqlRoute = (app: Hono<ApiEnv>, world: SimWorld, limits: RateLimits): void => {
  app.post("/graphql", (c) =>
    run(c, Effect.gen(function* () {
      const body = yield* readBody(c, GraphqlBody)
      let document: DocumentNode
      try {
        document = parse(body.query)
      } catch (error) {
        const syntax = error instanceof GraphQLError ? error : new GraphQLError(String(error))
        return c.json({ errors: [formatError(syntax)] })
      }
      const invalid = validate(githubSchema(), document)
      if (invalid.length > 0) return c.json({ errors: invalid.map(formatError) })
      const viewer = c.get("user")
      limits.consume(viewer, "graphql")
      c.set("counted", true)
      const result = yield* Effect.promise(async () =>
        execute({
          schema: githubSchema(),
          document,
          rootValue: rootValue(world, limits, viewer),
          fieldResolver: strictResolver,
          variableValues: body.variables ?? null,
          operationName: body.operationName ?? null
        })
      )
      return c.json({
        data: result.data ?? null,
        ...(result.errors === undefined ? {} : { errors: result.errors.map(formatError) })
      })
    }))
  )
}
