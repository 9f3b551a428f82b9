import { Schema } from "effect"

/** One changed file; a rename or copy also names its old path. A binary file counts no lines (both are 0). */
export const DiffFileStat = Schema.Struct({
  path: Schema.String,
  oldPath: Schema.optional(Schema.String),
  insertions: Schema.NonNegativeInt,
  deletions: Schema.NonNegativeInt,
  binary: Schema.Boolean
})
export type DiffFileStat = typeof DiffFileStat.Type

/**
 * What a change does to the tree, as `git diff --numstat` counts it: totals over every file, and the first files
 * (in git's order) with their own counts. The list is capped so a huge change does not bloat the ledger.
 */
export const DiffSummary = Schema.Struct({
  filesChanged: Schema.NonNegativeInt,
  insertions: Schema.NonNegativeInt,
  deletions: Schema.NonNegativeInt,
  /** Changed files git counts as binary: in `filesChanged`, with no lines. */
  binaryFiles: Schema.NonNegativeInt,
  files: Schema.Array(DiffFileStat),
  /** Changed files beyond those listed. */
  filesOmitted: Schema.NonNegativeInt
})
export type DiffSummary = typeof DiffSummary.Type

/** How many files a summary lists by name. */
const DIFF_FILES_LISTED = 50

/** Totals over every file; the first `listed` files kept by name, the rest counted. */
export const summarizeDiff = (files: ReadonlyArray<DiffFileStat>, listed: number = DIFF_FILES_LISTED): DiffSummary => ({
  filesChanged: files.length,
  insertions: files.reduce((n, f) => n + f.insertions, 0),
  deletions: files.reduce((n, f) => n + f.deletions, 0),
  binaryFiles: files.filter((f) => f.binary).length,
  files: files.slice(0, listed),
  filesOmitted: Math.max(0, files.length - listed)
})
