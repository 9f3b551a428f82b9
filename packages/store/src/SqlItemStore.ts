import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Clock, Effect, Layer, Schema } from "effect"
import { ledgerPort } from "./ledgerPort"
import { ItemKey } from "@usine/core/ids/ItemKey"
import { column } from "./column"
import { ItemStore, type PollCursor } from "./ItemStore"
import { UndefinedFromNull } from "./UndefinedFromNull"
import { findAllByKey, findOneByKey } from "./findByKey"

const ProjectionFromRow = Schema.Struct({
  itemKey: column("item_key", Schema.String.pipe(Schema.fromBrand(ItemKey))),
  repository: Schema.String,
  number: Schema.Number,
  payload: column("payload_json", Schema.parseJson()),
  contentHash: column("content_hash", Schema.String),
  observedAt: column("observed_at", Schema.Number)
})

const CursorFromRow = Schema.Struct({
  repository: Schema.String,
  watermark: UndefinedFromNull(Schema.String),
  etag: UndefinedFromNull(Schema.String),
  openPullRequests: column("open_pull_requests_json", Schema.parseJson(Schema.Array(Schema.Number))),
  activeLoops: column("active_loops", Schema.String)
})

/** Repositories are keyed lowercase, like Item keys. */
const repositoryKey = (repository: string) => repository.toLowerCase()

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const saveProjection = SqlSchema.void({
    Request: ProjectionFromRow,
    execute: (row) =>
      sql`INSERT INTO usine_item_projections ${sql.insert({ ...row, repository: repositoryKey(row.repository) })}
          ON CONFLICT (item_key) DO UPDATE SET payload_json = excluded.payload_json,
            content_hash = excluded.content_hash, observed_at = excluded.observed_at
          WHERE usine_item_projections.content_hash <> excluded.content_hash`
  })
  const projection = findOneByKey(ProjectionFromRow, (itemKey) =>
    sql`SELECT * FROM usine_item_projections WHERE item_key = ${itemKey}`
  )
  const projections = findAllByKey(ProjectionFromRow, (repository) =>
    sql`SELECT * FROM usine_item_projections WHERE repository = ${repositoryKey(repository)} ORDER BY number`
  )
  const saveCursor = (c: PollCursor) =>
    Effect.gen(function* () {
      const row = yield* Schema.encode(CursorFromRow)(c)
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO usine_poll_cursors
          (repository, watermark, etag, open_pull_requests_json, active_loops, updated_at)
          VALUES (${repositoryKey(row.repository)}, ${row.watermark}, ${row.etag}, ${row.open_pull_requests_json},
            ${row.active_loops}, ${now})
          ON CONFLICT (repository) DO UPDATE SET watermark = excluded.watermark, etag = excluded.etag,
            open_pull_requests_json = excluded.open_pull_requests_json, active_loops = excluded.active_loops,
            updated_at = excluded.updated_at`
    })
  const cursor = findOneByKey(CursorFromRow, (repository) =>
    sql`SELECT * FROM usine_poll_cursors WHERE repository = ${repositoryKey(repository)}`
  )

  return ledgerPort(ItemStore, {
    saveProjection,
    projection,
    projections,
    saveCursor,
    cursor,
    clearCursor: (repository: string) =>
      sql`DELETE FROM usine_poll_cursors WHERE repository = ${repositoryKey(repository)}`
  })
})

export const layer: Layer.Layer<ItemStore, never, SqlClient.SqlClient> = Layer.effect(ItemStore, make)
