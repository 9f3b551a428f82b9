import type { FC } from "hono/jsx"
import { attemptStrip } from "../BoardViews/attemptStrip"
import type { RunView } from "../BoardViews/runView"
import { AttemptStrip } from "./AttemptStrip"
import { DiffStat, diffFigures } from "./DiffStat"
import { itemName, runPath, Time } from "./format"
import { PatchView } from "./PatchView"
import { RunActions } from "./RunActions"
import { TimelineEntries } from "./TimelineEntries"
import { TranscriptLines } from "./TranscriptLines"

const safeUrl = (url: string | undefined) => (url !== undefined && /^https?:\/\//.test(url) ? url : undefined)

/**
 * One Run: state and actions, result, usage, timeline (with its holds and edits), Attempts, verification, guards, and
 * the live transcript.
 */
export const RunPage: FC<{ view: RunView; csrf: string }> = ({ csrf, view }) => {
  const { run, transcript } = view
  const pr = safeUrl(view.result?.pullRequestUrl)
  const latest = view.attempts.at(-1)
  return (
    <>
      <p class="summary">
        <span class={`state ${run.state}`} data-testid="run-state">{run.state}</span>
        {run.cancelReason === undefined ? null : <span data-testid="cancel-reason">{` (${run.cancelReason})`}</span>}
        {` · ${run.loop} · ${itemName(run.repository, run.number)} · ${run.agent}${run.model === undefined ? "" : ` (${run.model})`}`}
      </p>
      <RunActions view={view} csrf={csrf} />

      {view.result === undefined ? null : (
        <section data-testid="result">
          <h2>Result</h2>
          {view.result.branch === undefined ? null : <p>Branch <code data-testid="branch">{view.result.branch}</code></p>}
          {pr === undefined ? null : (
            <p>Pull request <a href={pr} data-testid="pull-request" rel="noreferrer">{view.result.pullRequestNumber === undefined ? pr : `#${view.result.pullRequestNumber}`}</a></p>
          )}
          {view.result.summary === undefined ? null : <p data-testid="result-summary">{view.result.summary}</p>}
          <p>{`${view.result.commits.length} commit${view.result.commits.length === 1 ? "" : "s"}`}</p>
          {view.result.diff === undefined ? null : <DiffStat diff={view.result.diff} />}
        </section>
      )}

      {view.writeBack.length === 0 ? null : (
        <section data-testid="write-back">
          <h2>Write-back to GitHub</h2>
          <ul>
            {view.writeBack.map((w) => (
              <li data-testid="write-back-entry" data-phase={w.phase} data-status={w.status}>
                {`${w.phase}: ${w.status}${w.tries === 0 ? "" : ` after ${w.tries} ${w.tries === 1 ? "try" : "tries"}`}`}
                {w.lastError === undefined || w.status === "done" ? null : <pre data-testid="write-back-error">{w.lastError}</pre>}
                {w.notes.map((note) => <p data-testid="write-back-note">{note}</p>)}
              </li>
            ))}
          </ul>
        </section>
      )}

      {view.patch === undefined ? null : (
        <section data-testid="change">
          <h2>{`Change of Attempt ${view.patch.attemptNumber}`}</h2>
          <PatchView patch={view.patch.text} cut={view.patch.cut} download={`${runPath(run.id)}/patch`} />
        </section>
      )}

      {view.usage === undefined ? null : (
        <section data-testid="usage">
          <h2>Usage</h2>
          <p>
            <span data-testid="usage-input">{String(view.usage.inputTokens)}</span> in (
            <span data-testid="usage-cached">{String(view.usage.cachedInputTokens)}</span> cached),{" "}
            <span data-testid="usage-output">{String(view.usage.outputTokens)}</span> out
            {view.usage.costUsd === undefined ? null : <>, $<span data-testid="usage-cost">{view.usage.costUsd.toFixed(4)}</span></>}
          </p>
        </section>
      )}

      <section>
        <h2>Timeline</h2>
        <TimelineEntries entries={view.timeline} />
      </section>

      <section>
        <h2>Attempts</h2>
        <AttemptStrip bars={attemptStrip(view.attempts, view.transcript)} />
        <ul>
          {view.attempts.map((a) => (
            <li data-testid="attempt" data-attempt-id={a.id} data-outcome={a.outcome}>
              <a href={`${runPath(run.id)}?attempt=${a.number}`}>{`Attempt ${a.number}`}</a>
              {` · ${a.outcome}${a.worker === undefined ? "" : ` · ${a.worker}`} · `}<Time at={a.startedAt} />
              {a.diff === undefined ? null : <span data-testid="attempt-diff">{` · ${diffFigures(a.diff)}`}</span>}
              {a.failure === undefined ? null : (
                <div class="failure">
                  <p data-testid="attempt-failure">{`${a.failure.tag}: ${a.failure.reason}`}</p>
                  {a.failure.evidence === "" ? null : <pre>{a.failure.evidence}</pre>}
                </div>
              )}
            </li>
          ))}
        </ul>
      </section>

      {view.verification.length === 0 ? null : (
        <section data-testid="verification">
          <h2>Verification rounds</h2>
          <TranscriptLines lines={view.verification} />
        </section>
      )}
      {view.guards.length === 0 ? null : (
        <section data-testid="guards">
          <h2>Guards</h2>
          <TranscriptLines lines={view.guards} />
        </section>
      )}

      <section>
        <h2>{transcript.attemptNumber === undefined ? "Transcript" : `Transcript of Attempt ${transcript.attemptNumber}`}</h2>
        {transcript.earlierOmitted ? <p class="empty">Earlier rows are not shown.</p> : null}
        <div
          data-testid="transcript"
          data-transcript
          data-run-id={run.id}
          data-attempt-id={transcript.attemptId ?? ""}
          data-last-seq={String(transcript.lastSeq)}
          data-version={String(run.version)}
          data-note={String(view.latestNoteId)}
          data-follow={transcript.attemptId === undefined || transcript.attemptId === latest?.id ? "yes" : "no"}
        >
          <TranscriptLines lines={transcript.lines} />
        </div>
      </section>
      <details>
        <summary>Task</summary>
        <pre data-testid="run-task">{run.task}</pre>
      </details>
    </>
  )
}
