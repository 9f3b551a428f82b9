import type { GuardViolation } from "./GuardViolation"
import type { DiffFile } from "./UnifiedDiff"

/** Refuses a change of more files than the Loop allows; a rename is one changed file. */
export const changedFiles = (files: ReadonlyArray<DiffFile>, max: number | undefined): ReadonlyArray<GuardViolation> =>
  max === undefined || files.length <= max
    ? []
    : [{ guard: "max_changed_files", detail: `${files.length} files changed, at most ${max} allowed` }]
