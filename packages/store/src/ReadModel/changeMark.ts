import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A string that changes whenever a Run changes state or is written, a budget or an Ask changes, a Loop is paused, or
 * an Item's content changes (a projection is rewritten only when its content hash moves):
 * the live pages poll it and reload only when it moved. Each part is one index seek.
 */
export const makeChangeMark = (sql: SqlClient.SqlClient) =>
  sql<Record<string, number | null>>`SELECT
      (SELECT max(seq) FROM usine_transitions) AS transitions,
      (SELECT max(updated_at) FROM usine_runs) AS runs,
      (SELECT max(updated_at) FROM usine_item_cycle_budgets) AS budgets,
      (SELECT count(*) FROM usine_item_cycle_budgets WHERE ask_json IS NOT NULL) AS asks,
      (SELECT max(updated_at) FROM usine_loop_runtime) AS loops,
      (SELECT count(*) FROM usine_loop_runtime WHERE paused = 1) AS paused,
      (SELECT max(observed_at) FROM usine_item_projections) AS items`.pipe(
    Effect.map((rows) => Object.values(rows[0] ?? {}).map((value) => value ?? 0).join(":")),
    Effect.withSpan("ReadModel.changeMark")
  )
