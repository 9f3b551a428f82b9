import type { FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"
import { ActionButton } from "./ActionButton"
import { PatchView } from "./PatchView"
import { runPath } from "./format"

/**
 * The pull-request gate's three answers (ADR 0063): Approve PR, Request changes (a text for the agent's next turn),
 * Reject (the Run is canceled, its held work salvaged). `testSuffix` keeps test ids unique on a page listing several.
 */
export const ReviewActions: FC<{ runId: string; version: number; csrf: string; back: string; testSuffix?: string }> = (props) => {
  const base = runPath(props.runId)
  const suffix = props.testSuffix ?? ""
  return (
    <div class="review-actions">
      <ActionButton action={`${base}/approve-pull-request`} label="Approve PR" testId={`action-approvePullRequest${suffix}`} csrf={props.csrf} back={props.back} fields={{ version: props.version }} />
      <ActionButton action={`${base}/reject`} label="Reject" testId={`action-reject${suffix}`} csrf={props.csrf} back={props.back} fields={{ version: props.version }} confirm="Reject this work? The Run is canceled; its work goes to a salvage branch." />
      <details>
        <summary>Request changes</summary>
        <form method="post" action={`${base}/request-changes`} data-live-form class="stack">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <input type="hidden" name="back" value={props.back} />
          <input type="hidden" name="version" value={String(props.version)} />
          <label>What the agent should change <textarea name="text" rows={4}></textarea></label>
          <button type="submit" data-testid={`action-requestChanges${suffix}`}>Request changes</button>
        </form>
      </details>
    </div>
  )
}

/** A held Attempt's unified diff per file; cut at the ledger's bound, which a note then says. */
export const HeldPatch: FC<{ runId: string; patch: string; cut: boolean }> = ({ cut, patch, runId }) => (
  <details open>
    <summary>{cut ? "Diff (cut)" : "Diff"}</summary>
    <PatchView patch={patch} cut={cut} download={`${runPath(runId)}/patch`} testId="held-patch" />
  </details>
)
