import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option, Schema } from "effect"
import { ItemKey, parseItemKey } from "@usine/core/ids/ItemKey"
import type { CycleBudgetAsk } from "../CycleBudgets"
import { greatest } from "../SqlDialect"

const Ask = Schema.Struct({
  askId: Schema.String,
  loop: Schema.String,
  itemKey: Schema.String.pipe(Schema.fromBrand(ItemKey)),
  generation: Schema.Number,
  limit: Schema.Number,
  askedAt: Schema.Number
})
const AskJson = Schema.parseJson(Ask)

/** One Ask per Item and generation: only a reset (a new generation) answers it. */
export const askIdOf = (itemKey: ItemKey, generation: number): string => `${generation}:${itemKey}`

interface Budget {
  readonly generation: number
  readonly ask: Option.Option<CycleBudgetAsk>
}

const repositoryOf = (itemKey: ItemKey): string => parseItemKey(itemKey)?.repository ?? ""

/** Reads and writes of `usine_item_cycle_budgets` and `usine_cycle_resets`; SQL failures are defects. */
export const makeBudgetQueries = (sql: SqlClient.SqlClient) => {
  const upsert = (itemKey: ItemKey, generation: number, askJson: string | null, resetPending: boolean, now: number) =>
    sql`INSERT INTO usine_item_cycle_budgets (item_key, repository, generation, ask_json, reset_pending, updated_at)
        VALUES (${itemKey}, ${repositoryOf(itemKey)}, ${generation}, ${askJson}, ${resetPending ? 1 : 0}, ${now})
        ON CONFLICT (item_key) DO UPDATE SET generation = excluded.generation, ask_json = excluded.ask_json,
          reset_pending = ${greatest(sql, "usine_item_cycle_budgets.reset_pending", "excluded.reset_pending")}, updated_at = excluded.updated_at`

  return {
    /** The Item's generation (0 when never reset) and its open Ask. */
    budget: (itemKey: ItemKey) =>
      sql<{ generation: number; ask_json: string | null }>`SELECT generation, ask_json
          FROM usine_item_cycle_budgets WHERE item_key = ${itemKey}`.pipe(
        Effect.flatMap((rows) => {
          const row = rows[0]
          if (row === undefined) return Effect.succeed<Budget>({ generation: 0, ask: Option.none() })
          if (row.ask_json === null) return Effect.succeed<Budget>({ generation: row.generation, ask: Option.none() })
          return Schema.decode(AskJson)(row.ask_json).pipe(
            Effect.map((ask): Budget => ({ generation: row.generation, ask: Option.some(ask) }))
          )
        })
      ),

    storeAsk: (ask: CycleBudgetAsk, now: number) =>
      Schema.encode(AskJson)(ask).pipe(
        Effect.flatMap((json) => upsert(ask.itemKey, ask.generation, json, false, now))
      ),

    /** Records the answer Event; false when this Ask was already answered. */
    recordReset: (eventId: string, itemKey: ItemKey, askId: string, from: number, now: number) =>
      sql`INSERT INTO usine_cycle_resets (event_id, item_key, ask_id, from_generation, to_generation, at)
          VALUES (${eventId}, ${itemKey}, ${askId}, ${from}, ${from + 1}, ${now}) ON CONFLICT DO NOTHING RETURNING event_id`.pipe(
        Effect.map((rows) => rows.length === 1)
      ),

    /** Next generation, Ask cleared, `reset_pending` set. */
    advance: (itemKey: ItemKey, generation: number, now: number) => upsert(itemKey, generation, null, true, now),

    asks: sql<{ ask_json: string }>`SELECT ask_json FROM usine_item_cycle_budgets
        WHERE ask_json IS NOT NULL ORDER BY updated_at, item_key`.pipe(
      Effect.flatMap((rows) => Effect.forEach(rows, (row) => Schema.decode(AskJson)(row.ask_json)))
    ),

    takeResetPending: (repository: string) =>
      sql<{ item_key: string }>`UPDATE usine_item_cycle_budgets SET reset_pending = 0
          WHERE repository = ${repository.toLowerCase()} AND reset_pending = 1 RETURNING item_key`.pipe(
        Effect.map((rows) => rows.map((row) => ItemKey(row.item_key)))
      )
  }
}

