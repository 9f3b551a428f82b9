import { posix } from "node:path"
import picomatch from "picomatch"
import type { GuardViolation } from "./GuardViolation"
import type { DiffFile } from "./UnifiedDiff"

/** A Loop without `forbidden_paths` may not touch CI: a workflow runs with the repository's secrets. */
export const DEFAULT_FORBIDDEN_PATHS: ReadonlyArray<string> = [".github/workflows/**"]

/** The paths a change touches: both sides of a rename or copy count. */
const touchedPaths = (files: ReadonlyArray<DiffFile>): ReadonlyArray<string> => [
  ...new Set(files.flatMap((f) => [f.oldPath, f.newPath].filter((p): p is string => p !== undefined)))
]

/** A path that leaves the repository (`..`, absolute) or hides its shape (backslash, NUL, empty segments). */
const escapes = (path: string): boolean =>
  path === "" ||
  path.startsWith("/") ||
  path.includes("\\") ||
  path.includes("\0") ||
  path.split("/").some((segment) => segment === ".." || segment === "." || segment === "")

/**
 * Checks every touched path against the Loop's globs. Matching ignores case (a case-insensitive checkout would
 * treat `.GitHub/workflows` as the workflows folder) and includes dot files.
 */
export const forbiddenPaths = (files: ReadonlyArray<DiffFile>, globs: ReadonlyArray<string>): ReadonlyArray<GuardViolation> => {
  const matchers = globs.map((glob) => [glob, picomatch(glob, { dot: true, nocase: true })] as const)
  return touchedPaths(files).flatMap((path): ReadonlyArray<GuardViolation> => {
    if (escapes(path)) return [{ guard: "forbidden_paths", path, detail: "the path leaves the repository" }]
    const normalized = posix.normalize(path)
    const hit = matchers.find(([, matches]) => matches(normalized))
    return hit === undefined ? [] : [{ guard: "forbidden_paths", path, detail: `matches forbidden path ${hit[0]}` }]
  })
}
