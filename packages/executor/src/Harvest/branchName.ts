/** One segment of a branch name: what `git check-ref-format` accepts, and nothing a shell or URL would trip on. */
export const branchSegment = (raw: string): string => {
  const cleaned = raw
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.-]+/, "")
    .replace(/(?:\.lock)+$/i, "")
    .replace(/[.-]+$/, "")
    .slice(0, 60)
  return cleaned === "" ? "x" : cleaned
}

/** `usine/<loop>/<item number or "tick">-<first 8 of the Run id>`: one branch per Run, shared by its Attempts. */
export const runBranchName = (run: { readonly loop: string; readonly number?: number | undefined; readonly id: string }): string =>
  `usine/${branchSegment(run.loop)}/${run.number === undefined ? "tick" : String(run.number)}-${branchSegment(run.id.slice(0, 8))}`

/** `usine/salvage/<runId>/<attempt number>`: where a failed or interrupted Attempt's work is kept. */
export const salvageBranchName = (runId: string, attemptNumber: number): string =>
  `usine/salvage/${branchSegment(runId)}/${attemptNumber}`

export const salvagePrefix = (runId: string): string => `usine/salvage/${branchSegment(runId)}/`

/**
 * `refs/usine/salvage/<runId>/<attempt number>` in the Worker's mirror: salvage writes it before pushing, so the
 * work has a name even when GitHub cannot be reached. Outside `refs/heads/`, the mirror's pruning fetch keeps it.
 */
export const salvageLocalRef = (runId: string, attemptNumber: number): string =>
  `${salvageLocalPrefix(runId)}${attemptNumber}`

export const salvageLocalPrefix = (runId: string): string => `refs/usine/salvage/${branchSegment(runId)}/`

/** The subject of the commit a salvage makes of an Attempt's leftovers; never a pull request's title. */
export const SALVAGE_SUBJECT = "usine: salvaged work of Run "
