import type { FC } from "hono/jsx"
import type { AuditQuery, AuditView } from "../AuditTrail/auditView"
import { ROLE_NEEDED } from "../BoardAccess/roleNeeded"
import { runPath, Time } from "./format"

/** Every action the audit may hold, for the filter's choices. */
const ACTIONS: ReadonlyArray<string> = [...Object.keys(ROLE_NEEDED), "unpause", "openPullRequest", "push"].sort()

const isoInput = (millis: number | undefined) => (millis === undefined ? "" : new Date(millis).toISOString().slice(0, 16))

/** The query string of the Audit page for these filters. */
const auditHref = (query: AuditQuery, patch: Partial<Record<keyof AuditQuery, string | undefined>>): string => {
  const params = new URLSearchParams()
  const merged: Record<string, string | number | undefined> = { ...query, before: undefined, ...patch }
  for (const [key, value] of Object.entries(merged)) if (value !== undefined && value !== "") params.set(key, String(value))
  const text = params.toString()
  return text === "" ? "/audit" : `/audit?${text}`
}

/** Who did what, where and when on the Board, newest first, filtered by person, repository, action, Loop and time. */
export const AuditPage: FC<{ view: AuditView }> = ({ view }) => {
  const { entries, query } = view
  return (
    <>
      <form method="get" action="/audit" class="filters" data-testid="audit-filter">
        <label>Person <input name="login" value={query.login ?? ""} placeholder="login or operator" /></label>
        <label>Repository <input name="repository" value={query.repository ?? ""} placeholder="owner/name" /></label>
        <label>Action
          <select name="action">
            <option value="">any</option>
            {ACTIONS.map((action) => <option value={action} selected={query.action === action}>{action}</option>)}
          </select>
        </label>
        <label>Loop <input name="loop" value={query.loop ?? ""} /></label>
        <label>Since <input type="datetime-local" name="since" value={isoInput(query.since)} /></label>
        <label>Until <input type="datetime-local" name="until" value={isoInput(query.until)} /></label>
        <button type="submit">Filter</button>
      </form>
      <table>
        <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Where</th><th>Said</th><th>Outcome</th></tr></thead>
        <tbody>
          {entries.map((entry) => (
            <tr data-testid="audit-row" data-by={entry.by} data-action={entry.action} data-outcome={entry.outcome}>
              <td><Time at={entry.at} /></td>
              <td>
                {entry.by === "agent"
                  ? entry.for === undefined ? "agent" : <>agent for <a href={auditHref(query, { login: entry.for })}>@{entry.for}</a></>
                  : <a href={auditHref(query, { login: entry.by })}>{entry.by === "operator" ? "operator" : `@${entry.by}`}</a>}
              </td>
              <td><a href={auditHref(query, { action: entry.action })}>{entry.action}</a></td>
              <td>
                {entry.repository === undefined ? null : <a href={auditHref(query, { repository: entry.repository })}>{entry.item ?? entry.repository}</a>}
                {entry.runId === undefined ? null : <> · <a href={runPath(entry.runId)}>Run {entry.runId.slice(0, 8)}</a></>}
                {entry.loop === undefined ? null : <> · loop {entry.loop}</>}
              </td>
              <td class="said">{entry.detail ?? ""}</td>
              <td class={`outcome ${entry.outcome}`}>{entry.result === undefined ? entry.outcome : `${entry.outcome}: ${entry.result}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {entries.length === 0 ? <p class="empty">No action matches.</p> : null}
      {view.next === undefined ? null : <p><a href={auditHref(query, { before: view.next })} data-testid="next-page">Older</a></p>}
    </>
  )
}
