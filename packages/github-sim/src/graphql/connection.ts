import { GraphQLError } from "graphql"

/** Pagination arguments of a GitHub connection field. */
export interface ConnectionArgs {
  readonly first?: number | null
  readonly last?: number | null
  readonly after?: string | null
  readonly before?: string | null
}

const cursorOf = (index: number) => Buffer.from(`cursor:v2:${index}`).toString("base64")
const indexOf = (cursor: string) => Number(Buffer.from(cursor, "base64").toString("utf8").replace("cursor:v2:", ""))

/**
 * A connection over `items` with GitHub's rules: `first` or `last` is required and at most 100,
 * cursors are opaque; `nodes`, `edges`, `pageInfo` and `totalCount` are all served.
 */
export const connection = <A>(name: string, items: ReadonlyArray<A>, args: ConnectionArgs) => {
  const first = args.first ?? undefined
  const last = args.last ?? undefined
  if (first === undefined && last === undefined) {
    throw new GraphQLError(`You must provide a \`first\` or \`last\` value to properly paginate the \`${name}\` connection.`, {
      extensions: { type: "MISSING_PAGINATION_BOUNDARIES" }
    })
  }
  for (const [arg, value] of [["first", first], ["last", last]] as const) {
    if (value !== undefined && (value < 0 || value > 100)) {
      throw new GraphQLError(`Requesting ${value} records on the \`${name}\` connection exceeds the \`${arg}\` limit of 100 records.`, {
        extensions: { type: "EXCESSIVE_PAGINATION" }
      })
    }
  }
  let start = args.after == null ? 0 : indexOf(args.after) + 1
  let end = args.before == null ? items.length : indexOf(args.before)
  if (first !== undefined) end = Math.min(end, start + first)
  if (last !== undefined) start = Math.max(start, end - last)
  const edges = items.slice(start, end).map((node, i) => ({ node, cursor: cursorOf(start + i) }))
  return {
    totalCount: items.length,
    nodes: edges.map((edge) => edge.node),
    edges,
    pageInfo: {
      hasNextPage: end < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null
    }
  }
}
