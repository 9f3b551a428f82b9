import type { RedactorService } from "@usine/core/text/Redactor"
import type { GuardViolation } from "./GuardViolation"
import type { LinkEntry } from "./LinkEntries"
import { looksLike } from "./SecretScan"

/** A text that goes to GitHub besides the files' lines: the commit's message and identity, the pull request's text. */
export interface LeavingText {
  /** What it is, as the operator reads it: `the commit message`, `the agent's commit subjects`. */
  readonly what: string
  readonly text: string
}

const findings = (redactor: RedactorService, text: string): ReadonlyArray<string> =>
  redactor.scan(text).map((finding) => looksLike(finding.kind))

/**
 * The secret scan of everything that leaves besides the lines a change adds (issue 31): every path the change adds
 * or alters (a file name is pushed too), every symbolic link's target, and `leaving`. The paths a violation names
 * are redacted: the name can be the secret.
 */
export const secretsLeaving = (
  paths: ReadonlyArray<string>,
  links: ReadonlyArray<LinkEntry>,
  leaving: ReadonlyArray<LeavingText>,
  redactor: RedactorService
): ReadonlyArray<GuardViolation> => [
  ...[...new Set(paths)].flatMap((path) =>
    findings(redactor, path).map((detail): GuardViolation => ({ guard: "secret_scan", path: redactor.redact(path), detail: `its path ${detail}` }))
  ),
  ...links.flatMap((link) =>
    link.kind !== "symlink"
      ? []
      : findings(redactor, link.target).map((detail): GuardViolation => ({
        guard: "secret_scan",
        path: redactor.redact(link.path),
        detail: `its link target ${detail}`
      }))
  ),
  ...leaving.flatMap(({ what, text }) => findings(redactor, text).map((detail): GuardViolation => ({ guard: "secret_scan", detail: `${what} ${detail}` })))
]
