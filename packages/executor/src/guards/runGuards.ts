import { AgentFailure } from "@usine/core/attempt/failure"
import type { AttemptPolicy } from "@usine/engine/Executor"
import type { RedactorService } from "@usine/core/text/Redactor"
import { changedFiles } from "./ChangedFiles"
import { forbiddenPaths } from "./ForbiddenPaths"
import type { GuardViolation } from "./GuardViolation"
import { type LinkEntry, linkEntries } from "./LinkEntries"
import { secretScan } from "./SecretScan"
import { type LeavingText, secretsLeaving } from "./SecretsLeaving"
import { parseUnifiedDiff } from "./UnifiedDiff"

type GuardResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly violations: ReadonlyArray<GuardViolation> }

/**
 * Runs every pre-push guard on the Attempt's change against its base. All guards run, so the operator sees every
 * violation at once. The diff must have git's default shape and show every file as text, whatever any config or
 * attribute says: `git diff -M --text --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/`, in a
 * repository without attributes. `links` are the symbolic links and submodule entries the change adds or alters,
 * `paths` every path it adds or alters (exact, from `git diff --raw -z`), `leaving` the other texts that go to GitHub.
 */
export const runGuards = (
  change: {
    readonly diff: string
    readonly links: ReadonlyArray<LinkEntry>
    readonly paths?: ReadonlyArray<string> | undefined
    readonly leaving?: ReadonlyArray<LeavingText> | undefined
  },
  policy: Pick<AttemptPolicy, "forbiddenPaths" | "maxChangedFiles">,
  redactor: RedactorService
): GuardResult => {
  const files = parseUnifiedDiff(change.diff)
  const violations = [
    ...forbiddenPaths(files, policy.forbiddenPaths),
    ...linkEntries(change.links, policy.forbiddenPaths),
    ...changedFiles(files, policy.maxChangedFiles),
    ...secretScan(files, redactor),
    ...secretsLeaving(change.paths ?? [], change.links, change.leaving ?? [], redactor)
  ].map((v) => (v.path === undefined ? v : { ...v, path: redactor.redact(v.path) }))
  return violations.length === 0 ? { ok: true } : { ok: false, violations }
}

const describe = (v: GuardViolation): string =>
  `${v.guard}: ${v.path === undefined ? "" : `${v.path}${v.line === undefined ? "" : `:${v.line}`} `}${v.detail}`

/** The Attempt's failure when a guard refused: nothing was pushed, and the evidence lists every violation. */
export const guardFailure = (violations: ReadonlyArray<GuardViolation>): AgentFailure =>
  new AgentFailure({
    reason: `the pre-push guards refused the change (${violations.length} violation${violations.length === 1 ? "" : "s"}); nothing was pushed`,
    evidence: violations.map(describe).join("\n")
  })
