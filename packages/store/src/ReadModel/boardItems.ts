import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { checksOfContexts } from "@usine/core/checks/checksOfContexts"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { RunId } from "@usine/core/ids/RunId"
import { OPEN_STATES_SQL } from "../SqlRunStore/RunQueries"
import { RunStateTagSchema } from "./RunSummary"

const OpenRunRef = Schema.Struct({
  id: Schema.String.pipe(Schema.fromBrand(RunId)),
  loop: Schema.String,
  state: RunStateTagSchema
})
type OpenRunRef = typeof OpenRunRef.Type

/** An Item as the Board shows it: what polling last saw of it, and its open Runs. */
export const BoardItem = Schema.Struct({
  itemKey: Schema.String.pipe(Schema.fromBrand(ItemKey)),
  repository: Schema.String,
  number: Schema.Number,
  kind: Schema.Literal("issue", "pull_request"),
  title: Schema.String,
  /** As GitHub spells it (`OPEN`, `CLOSED`, `MERGED`), lowercased. */
  state: Schema.String,
  url: Schema.String,
  labels: Schema.Array(Schema.String),
  observedAt: Schema.Number,
  openRuns: Schema.Array(OpenRunRef),
  /** A pull request's CI on its head commit as polling last saw it; absent on an issue. */
  checks: Schema.optional(Schema.Struct({ total: Schema.Number, passed: Schema.Number, failed: Schema.Number, pending: Schema.Number }))
})
export type BoardItem = typeof BoardItem.Type

const CheckContext = Schema.Struct({
  __typename: Schema.String,
  name: Schema.optional(Schema.String),
  status: Schema.optional(Schema.String),
  conclusion: Schema.optional(Schema.NullOr(Schema.String)),
  detailsUrl: Schema.optional(Schema.NullOr(Schema.String)),
  context: Schema.optional(Schema.String),
  state: Schema.optional(Schema.String),
  targetUrl: Schema.optional(Schema.NullOr(Schema.String))
})

/** The projection is GitHub's GraphQL slice (`labels.nodes[].name`) or already flattened fields (`labels[]`). */
const Payload = Schema.Struct({
  __typename: Schema.optional(Schema.String),
  title: Schema.optionalWith(Schema.String, { default: () => "" }),
  state: Schema.optionalWith(Schema.String, { default: () => "" }),
  url: Schema.optionalWith(Schema.String, { default: () => "" }),
  merged: Schema.optional(Schema.Boolean),
  headRefName: Schema.optional(Schema.String),
  labels: Schema.optionalWith(
    Schema.Union(
      Schema.Array(Schema.String),
      Schema.Struct({ nodes: Schema.Array(Schema.Struct({ name: Schema.String })) })
    ),
    { default: () => [] }
  )
})
const decodeJson = Schema.decodeUnknownOption(Schema.parseJson())
const decodePayload = Schema.decodeUnknownOption(Payload)

/** A pull request's head commit checks, apart: a shape it does not expect costs the card its CI badge, not its title. */
const Rollup = Schema.Struct({
  commits: Schema.Struct({
    nodes: Schema.Array(Schema.Struct({
      commit: Schema.Struct({
        statusCheckRollup: Schema.NullOr(Schema.Struct({ contexts: Schema.Struct({ nodes: Schema.Array(CheckContext) }) }))
      })
    }))
  })
})
const decodeRollup = Schema.decodeUnknownOption(Rollup)

const ProjectionRow = Schema.Struct({
  item_key: Schema.String,
  repository: Schema.String,
  number: Schema.Number,
  payload_json: Schema.String,
  observed_at: Schema.Number
})
const RunRefRow = Schema.Struct({ item_key: Schema.String, id: Schema.String, loop: Schema.String, state: RunStateTagSchema })

const itemOf = (row: typeof ProjectionRow.Type, openRuns: ReadonlyArray<OpenRunRef>): BoardItem => {
  const json = Option.getOrUndefined(decodeJson(row.payload_json))
  const payload = Option.getOrUndefined(decodePayload(json))
  const labels = payload?.labels ?? []
  const merged = payload?.merged === true
  const kind = payload?.__typename === "PullRequest" || payload?.headRefName !== undefined ? "pull_request" : "issue"
  const rollup = kind === "pull_request" ? Option.getOrUndefined(decodeRollup(json)) : undefined
  const counts = rollup === undefined ? undefined : checksOfContexts(rollup.commits.nodes[0]?.commit.statusCheckRollup?.contexts.nodes ?? [])
  return {
    itemKey: ItemKey(row.item_key),
    repository: row.repository,
    number: row.number,
    kind,
    title: payload?.title ?? "",
    state: merged ? "merged" : (payload?.state ?? "").toLowerCase(),
    url: payload?.url ?? "",
    labels: "nodes" in labels ? labels.nodes.map((label) => label.name) : labels,
    observedAt: row.observed_at,
    openRuns,
    ...(counts === undefined
      ? {}
      : { checks: { total: counts.total, passed: counts.passed, failed: counts.failed, pending: counts.pending } })
  }
}

/** The Board: projections of the given repositories by number, each with its open Runs. */
export const makeBoardItems = (sql: SqlClient.SqlClient) => {
  const decodeProjections = Schema.decodeUnknown(Schema.Array(ProjectionRow))
  const decodeRuns = Schema.decodeUnknown(Schema.Array(RunRefRow))

  return Effect.fn("ReadModel.boardItems")(function* (repositories: ReadonlyArray<string>) {
    if (repositories.length === 0) return []
    const keys = repositories.map((r) => r.toLowerCase())
    const projections = yield* decodeProjections(
      yield* sql`SELECT item_key, repository, number, payload_json, observed_at FROM usine_item_projections
          WHERE repository IN ${sql.in(keys)} ORDER BY repository, number`
    )
    const runs = yield* decodeRuns(
      yield* sql`SELECT r.item_key, r.id, r.loop, r.state FROM usine_item_projections p
          JOIN usine_runs r ON r.item_key = p.item_key
          WHERE p.repository IN ${sql.in(keys)} AND r.state IN ${sql.literal(OPEN_STATES_SQL)}
          ORDER BY r.received_at, r.id`
    )
    const byItem = new Map<string, Array<OpenRunRef>>()
    for (const run of runs) {
      const list = byItem.get(run.item_key) ?? []
      list.push({ id: RunId(run.id), loop: run.loop, state: run.state })
      byItem.set(run.item_key, list)
    }
    return projections.map((row) => itemOf(row, byItem.get(row.item_key) ?? []))
  })
}
