import type { AttemptPolicy } from "@usine/engine/Executor"

/**
 * `Closes #N` for an issue Loop's pull request (unless `pull_request.closes: false`): GitHub closes the issue when
 * the pull request merges into the default branch. A line of its own, so GitHub reads the keyword.
 */
export const closingLine = (
  run: { readonly number?: number | undefined },
  policy: Pick<AttemptPolicy, "kind" | "pullRequest">
): ReadonlyArray<string> =>
  policy.kind === "issues" && run.number !== undefined && (policy.pullRequest?.closes ?? true) ? [`Closes #${run.number}`] : []
