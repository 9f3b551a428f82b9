import type { FC } from "hono/jsx"
import type { RefusedTriggersView } from "../BoardViews/needsYouView"
import { itemName, Time } from "./format"

/** The Runs page filtered on one Item: where a trusted trigger of it would show up. */
const itemRunsPath = (repository: string, number: number | undefined): string =>
  `/runs?item=${encodeURIComponent(itemName(repository, number))}`

/** Needs you's refused triggers, newest first: who tried to start a Loop and why it did not start. */
export const RefusedTriggers: FC<{ view: RefusedTriggersView }> = ({ view }) =>
  view.recent.length === 0 ? null : (
    <section data-testid="refused">
      <h2>Refused triggers</h2>
      <ul>
        {view.recent.map((r) => (
          <li data-testid="refused-trigger" data-loop={r.loop} data-item={itemName(r.repository, r.number)}>
            <Time at={r.at} /> <span>{r.loop}</span> · <a href={itemRunsPath(r.repository, r.number)}>{itemName(r.repository, r.number)}</a>
            {": "}<span data-testid="refused-reason">{r.reason}</span>
          </li>
        ))}
      </ul>
      {view.more === 0 ? null : <p data-testid="refused-more">{`${view.more} older refusal${view.more === 1 ? "" : "s"} not shown.`}</p>}
    </section>
  )
