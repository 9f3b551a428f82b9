import type * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Effect } from "effect"

/**
 * Pausing Loops, and the paused set kept in memory between pauses (ADR 0080): the engine asks before every
 * submission, and only `setPaused` writes `usine_loop_runtime.paused`. A read that a pause overtook is not kept.
 */
export const makeLoopPauses = (sql: SqlClient.SqlClient) => {
  let paused: ReadonlySet<string> | undefined
  let writes = 0
  const read = sql<{ loop: string }>`SELECT loop FROM usine_loop_runtime WHERE paused = 1`.pipe(
    Effect.map((rows): ReadonlySet<string> => new Set(rows.map((row) => row.loop)))
  )
  return {
    setPaused: Effect.fn("LoopPauses.setPaused")(function* (loop: string, value: boolean) {
      const now = yield* Clock.currentTimeMillis
      writes++
      paused = undefined
      yield* sql`INSERT INTO usine_loop_runtime (loop, paused, updated_at) VALUES (${loop}, ${value ? 1 : 0}, ${now})
          ON CONFLICT (loop) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`.pipe(
        Effect.ensuring(Effect.sync(() => {
          writes++
          paused = undefined
        }))
      )
    }),
    pausedLoops: Effect.suspend(() => {
      if (paused !== undefined) return Effect.succeed(paused)
      const at = writes
      return Effect.tap(read, (set) => {
        if (at === writes) paused = set
      })
    })
  }
}
