import { posix } from "node:path"
import picomatch from "picomatch"
import type { GuardViolation } from "./GuardViolation"

/** A symbolic link or a submodule entry a change adds or alters, as git stores it. */
export type LinkEntry =
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  | { readonly kind: "gitlink"; readonly path: string }

const lower = (path: string) => path.toLowerCase()

/** `a` is `b` or one of its folders, as a case-insensitive checkout would see it. */
const isAncestorOrSelf = (a: string, b: string) => lower(b) === lower(a) || lower(b).startsWith(`${lower(a)}/`)

/**
 * Links are refused where they would reach what the path guard protects (ADR 0053): a link pointing outside the
 * repository (absolute, or climbing above its root), a link standing for a forbidden folder or leading into one
 * (`.github -> ci` puts `ci/workflows/x.yml` where GitHub reads workflows), and any submodule entry, whose commit
 * usine never checked.
 */
export const linkEntries = (links: ReadonlyArray<LinkEntry>, globs: ReadonlyArray<string>): ReadonlyArray<GuardViolation> => {
  const forbidden = globs.map((glob) => ({ glob, base: picomatch.scan(glob).base, matches: picomatch(glob, { dot: true, nocase: true }) }))
  return links.flatMap((link): ReadonlyArray<GuardViolation> => {
    if (link.kind === "gitlink") {
      return [{ guard: "links", path: link.path, detail: "a submodule entry: usine does not push commits it cannot read" }]
    }
    const target = link.target
    if (target === "" || target.includes("\0") || target.startsWith("/")) {
      return [{ guard: "links", path: link.path, detail: "a symbolic link to an absolute path" }]
    }
    const resolved = posix.normalize(posix.join(posix.dirname(link.path), target))
    if (resolved === ".." || resolved.startsWith("../")) {
      return [{ guard: "links", path: link.path, detail: "a symbolic link that points outside the repository" }]
    }
    const reached = forbidden.find(
      ({ base, matches }) =>
        (base !== "" && (isAncestorOrSelf(link.path, base) || isAncestorOrSelf(resolved, base) || isAncestorOrSelf(base, resolved))) ||
        matches(resolved)
    )
    return reached === undefined
      ? []
      : [{ guard: "links", path: link.path, detail: `a symbolic link that reaches forbidden path ${reached.glob}` }]
  })
}
