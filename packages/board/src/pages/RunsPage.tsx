import type { FC } from "hono/jsx"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import type { RunsQuery, RunsView } from "../BoardViews"
import { itemName, runPath, Time } from "./format"
import { RunsChart } from "./RunsChart"

const isoInput = (millis: number | undefined) => (millis === undefined ? "" : new Date(millis).toISOString().slice(0, 16))

/** The query string of the Runs page for these filters. */
const runsHref = (query: RunsQuery, patch: Partial<Record<keyof RunsQuery, string | undefined>>): string => {
  const params = new URLSearchParams()
  const merged: Record<string, string | number | undefined> = { ...query, before: undefined, ...patch }
  for (const [key, value] of Object.entries(merged)) if (value !== undefined && value !== "") params.set(key, String(value))
  const text = params.toString()
  return text === "" ? "/runs" : `/runs?${text}`
}

/** Runs, newest first, filtered by Loop, repository, Item, state and time, with counts per state and by day. */
export const RunsPage: FC<{ view: RunsView }> = ({ view }) => {
  const { page, query } = view
  return (
    <>
      <form method="get" action="/runs" class="filters" data-testid="runs-filter">
        <label>Loop <input name="loop" value={query.loop ?? ""} /></label>
        <label>Repository <input name="repository" value={query.repository ?? ""} placeholder="owner/name" /></label>
        <label>Item <input name="item" value={query.item ?? ""} placeholder="owner/name#12" /></label>
        <label>State
          <select name="state">
            <option value="">any</option>
            {RUN_STATE_TAGS.map((tag) => <option value={tag} selected={query.state === tag}>{tag}</option>)}
          </select>
        </label>
        <label>Since <input type="datetime-local" name="since" value={isoInput(query.since)} /></label>
        <label>Until <input type="datetime-local" name="until" value={isoInput(query.until)} /></label>
        <button type="submit">Filter</button>
      </form>
      <ul class="counts">
        {RUN_STATE_TAGS.map((tag) => (
          <li>
            <a href={runsHref(query, { state: tag })}>{tag}</a>{" "}
            <span data-testid={`count-${tag}`}>{String(page.counts[tag])}</span>
          </li>
        ))}
      </ul>
      <RunsChart days={view.byDay} />
      <table>
        <thead><tr><th>Run</th><th>Loop</th><th>Item</th><th>State</th><th>Agent</th><th>Received</th></tr></thead>
        <tbody>
          {page.runs.map((run) => (
            <tr data-testid="run-row" data-run-id={run.id} data-state={run.state}>
              <td><a href={runPath(run.id)}>{run.id.slice(0, 8)}</a></td>
              <td>{run.loop}</td>
              <td>{itemName(run.repository, run.number)}</td>
              <td class={`state ${run.state}`}>{run.cancelReason === undefined ? run.state : `${run.state} (${run.cancelReason})`}</td>
              <td>{run.model === undefined ? run.agent : `${run.agent} · ${run.model}`}</td>
              <td><Time at={run.receivedAt} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.runs.length === 0 ? <p class="empty">No Run matches.</p> : null}
      {page.next === undefined ? null : <p><a href={runsHref(query, { before: page.next })} data-testid="next-page">Older</a></p>}
    </>
  )
}
