import type { FC } from "hono/jsx"
import type { RunView } from "../BoardViews/runView"
import { CSRF_FIELD } from "../BoardServer/security"
import { ActionButton } from "./ActionButton"
import { runPath } from "./format"
import { ReviewActions } from "./ReviewGate"

/** Only the actions legal in the Run's state, each a form post. */
export const RunActions: FC<{ view: RunView; csrf: string }> = ({ csrf, view }) => {
  const { run } = view
  const base = runPath(run.id)
  const can = (action: RunView["actions"][number]) => view.actions.includes(action)
  const openAttempt = view.attempts.findLast((a) => a.outcome === "Open")
  return (
    <section class="actions" data-testid="actions" data-actions={view.actions.join(" ")}>
      {can("approve") ? <ActionButton action={`${base}/approve`} label="Approve" testId="action-approve" csrf={csrf} back={base} fields={{ version: run.version }} /> : null}
      {can("approvePullRequest") ? <ReviewActions runId={run.id} version={run.version} csrf={csrf} back={base} /> : null}
      {can("retry") ? <ActionButton action={`${base}/retry`} label="Retry" testId="action-retry" csrf={csrf} back={base} fields={{ version: run.version }} /> : null}
      {can("resolveFailure") ? <ActionButton action={`${base}/resolve-failure`} label="Resolve failure" testId="action-resolveFailure" csrf={csrf} back={base} /> : null}
      {can("cancel") ? <ActionButton action={`${base}/cancel`} label="Cancel" testId="action-cancel" csrf={csrf} back={base} fields={{ version: run.version }} confirm="Cancel this Run?" /> : null}
      {can("editAndRetry")
        ? (
          <details>
            <summary>Edit and retry</summary>
            <form method="post" action={`${base}/edit-and-retry`} data-live-form class="stack">
              <input type="hidden" name={CSRF_FIELD} value={csrf} />
              <input type="hidden" name="back" value={base} />
              <input type="hidden" name="version" value={String(run.version)} />
              <label>Task <textarea name="task" rows={8}>{run.task}</textarea></label>
              <label>Agent <input name="agent" value={run.agent} /></label>
              <label>Model <input name="model" value={run.model ?? ""} /></label>
              <button type="submit" data-testid="action-editAndRetry">Edit and retry</button>
            </form>
          </details>
        )
        : null}
      {can("intervene") && openAttempt !== undefined
        ? (
          <form method="post" action={`${base}/intervene`} data-live-form class="stack">
            <input type="hidden" name={CSRF_FIELD} value={csrf} />
            <input type="hidden" name="back" value={base} />
            <input type="hidden" name="attemptId" value={openAttempt.id} />
            <label>Message to the agent <textarea name="message" rows={3}></textarea></label>
            <button type="submit" data-testid="action-intervene">Send</button>
          </form>
        )
        : null}
    </section>
  )
}
