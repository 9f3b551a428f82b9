import type * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Schema } from "effect"
import { ItemKey, parseItemKey } from "@usine/core/ids/ItemKey"

/** An open cycle-budget Ask as the operator sees it: which Loop spent which Item's budget. */
export const CycleAsk = Schema.Struct({
  askId: Schema.String,
  loop: Schema.String,
  itemKey: Schema.String.pipe(Schema.fromBrand(ItemKey)),
  repository: Schema.String,
  number: Schema.optional(Schema.Number),
  generation: Schema.Number,
  limit: Schema.Number,
  askedAt: Schema.Number
})
export type CycleAsk = typeof CycleAsk.Type

const StoredAsk = Schema.Struct({
  askId: Schema.String,
  loop: Schema.String,
  itemKey: Schema.String,
  generation: Schema.Number,
  limit: Schema.Number,
  askedAt: Schema.Number
})

const CycleAskFromRow = Schema.transform(Schema.Struct({ ask_json: Schema.parseJson(StoredAsk) }), CycleAsk, {
  strict: true,
  decode: ({ ask_json: ask }) => {
    const item = parseItemKey(ItemKey(ask.itemKey))
    return {
      ...ask,
      repository: item?.repository ?? "",
      ...(item?.number === undefined ? {} : { number: item.number })
    }
  },
  encode: ({ number: _number, repository: _repository, ...ask }) => ({ ask_json: ask })
})

/** Open Asks, oldest first, at most `limit`. */
export const makeOpenAsks = (sql: SqlClient.SqlClient) => {
  const query = SqlSchema.findAll({
    Request: Schema.Number,
    Result: CycleAskFromRow,
    execute: (limit) =>
      sql`SELECT ask_json FROM usine_item_cycle_budgets WHERE ask_json IS NOT NULL
          ORDER BY updated_at, item_key LIMIT ${limit}`
  })
  return (limit: number) => query(limit)
}
