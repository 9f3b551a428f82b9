import type { FC } from "hono/jsx"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import type { DayCounts } from "../BoardViews/runsByDay"
import { CHART, pointAt } from "./usageChartGeometry"

/**
 * Runs received per UTC day, a line per state they are in now, server-rendered SVG like the Usage chart; each point
 * carries its state, day and count. The same figures follow as a table, for screen readers and for reading exactly.
 */
export const RunsChart: FC<{ days: ReadonlyArray<DayCounts> }> = ({ days }) => {
  const states = RUN_STATE_TAGS.filter((state) => days.some((d) => d.counts[state] > 0))
  const max = Math.max(0, ...days.flatMap((d) => states.map((s) => d.counts[s])))
  const title = `Runs received per day by state, ${days[0]?.day ?? ""} to ${days.at(-1)?.day ?? ""} (UTC)`
  return (
    <figure class="chart" data-testid="runs-chart" data-max={String(max)}>
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-labelledby="runs-chart-title" preserveAspectRatio="xMidYMid meet">
        <title id="runs-chart-title">{title}</title>
        <line class="axis" x1={CHART.left} y1={CHART.height - CHART.bottom} x2={CHART.width - CHART.right} y2={CHART.height - CHART.bottom} />
        <line class="axis" x1={CHART.left} y1={CHART.top} x2={CHART.left} y2={CHART.height - CHART.bottom} />
        <text class="tick" x={CHART.left - 4} y={CHART.top + 4} text-anchor="end">{String(max)}</text>
        <text class="tick" x={CHART.left - 4} y={CHART.height - CHART.bottom} text-anchor="end">0</text>
        {days.map((d, i) => (i % 2 === days.length % 2 ? null : (
          <text class="tick" x={pointAt(i, days.length, 0, max).x} y={CHART.height - 8} text-anchor={i === days.length - 1 ? "end" : "middle"}>{d.day.slice(5)}</text>
        )))}
        {states.map((state) => {
          const points = days.map((d, i) => ({ day: d.day, value: d.counts[state], ...pointAt(i, days.length, d.counts[state], max) }))
          return (
            <g class={`series run-${state}`} data-testid="runs-series" data-state={state}>
              <polyline fill="none" points={points.map((p) => `${p.x},${p.y}`).join(" ")} />
              {points.map((p) => (
                <circle r={3.5} cx={p.x} cy={p.y} data-testid="runs-point" data-state={state} data-day={p.day} data-value={String(p.value)}>
                  <title>{`${state}, ${p.day}: ${p.value}`}</title>
                </circle>
              ))}
            </g>
          )
        })}
      </svg>
      <figcaption>
        {"Runs per day by state: "}
        {states.map((state) => <span class={`legend run-${state}`}>{state}</span>)}
        {states.length === 0 ? <span class="empty">no Run received in these days</span> : null}
      </figcaption>
      <details>
        <summary>The figures</summary>
        <div class="table-scroll">
          <table data-testid="runs-by-day">
            <thead><tr><th scope="col">Day (UTC)</th>{states.map((s) => <th scope="col">{s}</th>)}</tr></thead>
            <tbody>
              {days.map((d) => (
                <tr data-day={d.day}>
                  <th scope="row">{d.day}</th>
                  {states.map((s) => <td data-state={s}>{String(d.counts[s])}</td>)}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
