import type { FC } from "hono/jsx"
import type { DayUsage } from "@usine/store/BrakeStore"
import type { UsageView } from "../BoardViews/usageView"
import { UsageChart } from "./UsageChart"
import { capText, usageText } from "./usageText"

const Table: FC<{ title: string; rows: ReadonlyArray<DayUsage>; testId: string; named: boolean }> = (props) => (
  <section data-testid={props.testId}>
    <h2>{props.title}</h2>
    {props.rows.length === 0 ? <p class="empty">Nothing used in these days.</p> : (
      <table>
        <tr><th>Day (UTC)</th>{props.named ? <th>Name</th> : null}<th>Input (cached)</th><th>Output</th><th>Total</th></tr>
        {props.rows.map((row) => (
          <tr data-testid="usage-row" data-day={row.day} data-name={row.name}>
            <td>{row.day}</td>
            {props.named ? <td>{row.name}</td> : null}
            <td>{`${row.usage.inputTokens} (${row.usage.cachedInputTokens})`}</td>
            <td>{String(row.usage.outputTokens)}</td>
            <td data-testid="usage-total">{usageText(row.usage)}</td>
          </tr>
        ))}
      </table>
    )}
  </section>
)

/** Tokens and cost per UTC day for the daemon, each Loop (drawn too) and each repository, and where today stands on each cap. */
export const UsagePage: FC<{ view: UsageView }> = ({ view }) => (
  <>
    <p>{`UTC days ${view.days.at(-1) ?? ""} to ${view.days[0] ?? ""}. Tokens count input (cached included) and output; cost only where the harness reports it.`}</p>
    {view.caps.length === 0 ? null : (
      <section data-testid="usage-caps">
        <h2>Daily caps</h2>
        <ul>
          {view.caps.map((cap) => (
            <li data-testid="usage-cap" data-scope={cap.loop ?? ""} data-reached={cap.reached === undefined ? "no" : "yes"}>
              {`${cap.loop === undefined ? "daemon" : cap.loop}: ${capText(cap)}`}
            </li>
          ))}
        </ul>
      </section>
    )}
    <section data-testid="usage-charts" class="charts">
      <h2>By Loop</h2>
      <UsageChart metric="tokens" days={view.days} rows={view.loops} />
      <UsageChart metric="cost" days={view.days} rows={view.loops} />
    </section>
    <Table title="Daemon" rows={view.global} testId="usage-global" named={false} />
    <Table title="Loops" rows={view.loops} testId="usage-loops" named />
    <Table title="Repositories" rows={view.repositories} testId="usage-repositories" named />
  </>
)
