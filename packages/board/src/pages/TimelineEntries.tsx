import type { FC } from "hono/jsx"
import type { EditView } from "../BoardViews/editView"
import type { TimelineEntry } from "../BoardViews/timeline"
import { Time } from "./format"

/** An Edit and retry: Agent and model before → after, the task's changed lines, and both whole tasks folded. */
const EditDetails: FC<{ edit: EditView }> = ({ edit }) => (
  <div class="edit" data-testid="timeline-edit">
    {edit.fields.map((f) => (
      <p data-testid={`edit-${f.field}`}>{`${f.field}: ${f.before} → ${f.after}`}</p>
    ))}
    {edit.task === undefined ? null : (
      <>
        <pre class="task-change" data-testid="edit-task-change">
          {edit.task.lines.map((line) => (
            <span class={line.sign === "-" ? "diff-del" : line.sign === "+" ? "diff-add" : undefined}>{`${line.sign} ${line.text}\n`}</span>
          ))}
          {edit.task.truncated ? "…\n" : null}
        </pre>
        <details>
          <summary>Whole tasks, before and after</summary>
          <h3>Before</h3>
          <pre data-testid="edit-task-before">{edit.task.before}</pre>
          <h3>After</h3>
          <pre data-testid="edit-task-after">{edit.task.after}</pre>
        </details>
      </>
    )}
  </div>
)

/** A Run's history: transitions, holds and their releases, edits, and Attempts. */
export const TimelineEntries: FC<{ entries: ReadonlyArray<TimelineEntry> }> = ({ entries }) => (
  <ol class="timeline">
    {entries.map((entry) => (
      <li data-testid="timeline-entry" data-actor={entry.actor} data-by={entry.by} data-note={entry.note}>
        <Time at={entry.at} /> <strong>{entry.actor}</strong> <span data-testid="timeline-what">{entry.what}</span>
        {entry.why === "" ? null : <span class="why">{` — ${entry.why}`}</span>}
        {entry.by === undefined ? null : <span class="by" data-testid="timeline-by">{` by @${entry.by}`}</span>}
        {entry.edit === undefined ? null : <EditDetails edit={entry.edit} />}
      </li>
    ))}
  </ol>
)
