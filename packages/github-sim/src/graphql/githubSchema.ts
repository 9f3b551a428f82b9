import { schema as published } from "@octokit/graphql-schema"
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql"

let built: GraphQLSchema | undefined

/**
 * GitHub's published GraphQL schema, built once per process from the introspection result that
 * `@octokit/graphql-schema` ships (its SDL file repeats two fields and does not build; ADR 0008).
 */
export const githubSchema = (): GraphQLSchema => {
  built ??= buildClientSchema(published.json as IntrospectionQuery)
  return built
}
