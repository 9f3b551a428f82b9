import type { RedactorService } from "@usine/core/text/Redactor"
import type { GuardViolation } from "./GuardViolation"

/** `looks like a github token`, `looks like an encoded secret`. */
export const looksLike = (kind: string): string => {
  const words = kind.replace(/_/g, " ")
  return `looks like ${/^[aeiou]/.test(words) ? "an" : "a"} ${words}`
}
import type { DiffFile } from "./UnifiedDiff"

/**
 * Scans the lines a change adds for high-confidence secrets (the Redactor's strict patterns and the values
 * registered at runtime). Removed and context lines are already in the repository. The diff shows binary files as
 * text (`--text`); one it still calls binary could hide anything, so it is refused rather than passed unread.
 */
export const secretScan = (files: ReadonlyArray<DiffFile>, redactor: RedactorService): ReadonlyArray<GuardViolation> =>
  files.flatMap((file): ReadonlyArray<GuardViolation> =>
    file.binary && file.newPath !== undefined
      ? [{ guard: "secret_scan", path: file.newPath, detail: "a binary diff the scan cannot read" }]
      : file.added.flatMap(({ line, text }) =>
      redactor.scan(text).map((finding): GuardViolation => ({
        guard: "secret_scan",
        path: file.newPath ?? file.oldPath ?? "?",
        line,
        detail: looksLike(finding.kind)
      }))
    )
  )
