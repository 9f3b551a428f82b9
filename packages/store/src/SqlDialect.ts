import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"

/**
 * What SQLite and PostgreSQL spell differently, as fragments chosen by the client's dialect (ADR 0106): a query is
 * written once and takes these where the engines differ. Columns and paths are the store's own constants, never
 * input.
 */

/** The text at `path` (keys, outermost first) of the JSON held in the TEXT column `column`; null when absent. */
export const jsonText = (sql: SqlClient.SqlClient, column: string, path: ReadonlyArray<string>): Fragment =>
  sql.onDialectOrElse({
    pg: () => sql.literal(`(${column}::json #>> '{${path.join(",")}}')`),
    orElse: () => sql.literal(`json_extract(${column}, '$.${path.join(".")}')`)
  })

/** The larger of two values: SQLite's scalar `max(a, b)`, PostgreSQL's `GREATEST`. */
export const greatest = (sql: SqlClient.SqlClient, a: string, b: string): Fragment =>
  sql.onDialectOrElse({ pg: () => sql.literal(`GREATEST(${a}, ${b})`), orElse: () => sql.literal(`max(${a}, ${b})`) })

/**
 * `column` equals `repository` whatever the case: SQLite compares with `COLLATE NOCASE` (its index is NOCASE),
 * PostgreSQL compares `lower(column)` (its index is on `lower(repository)`). Both fold ASCII only.
 */
export const sameRepository = (sql: SqlClient.SqlClient, column: string, repository: string): Fragment =>
  sql.onDialectOrElse({
    pg: () => sql`lower(${sql.literal(column)}) = lower(CAST(${repository} AS TEXT))`,
    orElse: () => sql`${sql.literal(column)} = ${repository} COLLATE NOCASE`
  })

/**
 * The ItemKey of an issue or pull request (`["github","<repository>",<number>]`, compact, as `itemKeyOf` writes it)
 * from a lowercase repository column and a number column.
 */
export const itemKeyOfColumns = (sql: SqlClient.SqlClient, repository: string, number: string): Fragment =>
  sql.onDialectOrElse({
    pg: () => sql.literal(`('["github",' || to_json(${repository})::text || ',' || ${number} || ']')`),
    orElse: () => sql.literal(`json_array('github', ${repository}, ${number})`)
  })

/** SQLite's `INDEXED BY` hint where its planner needs one; PostgreSQL has no hints, its planner picks the index. */
export const indexedBy = (sql: SqlClient.SqlClient, index: string): Fragment =>
  sql.onDialectOrElse({ pg: () => sql.literal(""), orElse: () => sql.literal(`INDEXED BY ${index}`) })
