import * as SqlSchema from "@effect/sql/SqlSchema"
import { type Effect, Schema } from "effect"

// The store's most common query: rows picked by one text key (an id, a Run's id, a repository). `execute` gets the
// key and runs the SQL; `Result` decodes each row.
type ByKey<E, R> = (key: string) => Effect.Effect<ReadonlyArray<unknown>, E, R>

/** The first row for `key` (`Option.none` when there is none), decoded by `Result`. */
export const findOneByKey = <A, I, RA, E, R>(Result: Schema.Schema<A, I, RA>, execute: ByKey<E, R>) =>
  SqlSchema.findOne({ Request: Schema.String, Result, execute })

/** Every row for `key` in the order `execute` gives them, decoded by `Result`. */
export const findAllByKey = <A, I, RA, E, R>(Result: Schema.Schema<A, I, RA>, execute: ByKey<E, R>) =>
  SqlSchema.findAll({ Request: Schema.String, Result, execute })
