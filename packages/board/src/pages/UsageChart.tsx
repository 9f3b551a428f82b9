import type { FC } from "hono/jsx"
import type { DayUsage } from "@usine/store/BrakeStore"
import { CHART, pointAt } from "./usageChartGeometry"
import { formatUsd } from "@usine/core/usage/usageFigures"
import { tokenCount } from "./usageText"

type ChartMetric = "tokens" | "cost"

const valueOf = (metric: ChartMetric, row: DayUsage | undefined): number =>
  row === undefined ? 0 : metric === "tokens" ? tokenCount(row.usage) : row.usage.costUsd ?? 0

const label = (metric: ChartMetric, value: number): string =>
  metric === "tokens" ? value.toLocaleString("en-US") : formatUsd(value)

/**
 * One Loop's line per day of tokens or cost, server-rendered SVG: each point carries its Loop, day and value, and
 * a `<title>` for hover. `days` come newest first, as the Usage view holds them; the chart reads left to right.
 */
export const UsageChart: FC<{ metric: ChartMetric; days: ReadonlyArray<string>; rows: ReadonlyArray<DayUsage> }> = (props) => {
  const days = [...props.days].reverse()
  const loops = [...new Set(props.rows.map((r) => r.name))].sort()
  const byKey = new Map(props.rows.map((r) => [`${r.name}\u0000${r.day}`, r]))
  const max = Math.max(0, ...props.rows.map((r) => valueOf(props.metric, r)))
  const title = props.metric === "tokens" ? "Tokens per day by Loop" : "Cost per day by Loop"
  const id = `usage-chart-${props.metric}`
  return (
    <figure class="chart" data-testid={id} data-max={String(max)}>
      <svg viewBox={`0 0 ${CHART.width} ${CHART.height}`} role="img" aria-labelledby={`${id}-title`} preserveAspectRatio="xMidYMid meet">
        <title id={`${id}-title`}>{`${title}, ${days[0] ?? ""} to ${days.at(-1) ?? ""} (UTC)`}</title>
        <line class="axis" x1={CHART.left} y1={CHART.height - CHART.bottom} x2={CHART.width - CHART.right} y2={CHART.height - CHART.bottom} />
        <line class="axis" x1={CHART.left} y1={CHART.top} x2={CHART.left} y2={CHART.height - CHART.bottom} />
        <text class="tick" x={CHART.left - 4} y={CHART.top + 4} text-anchor="end">{label(props.metric, max)}</text>
        <text class="tick" x={CHART.left - 4} y={CHART.height - CHART.bottom} text-anchor="end">{label(props.metric, 0)}</text>
        {days.map((day, i) => {
          const { x } = pointAt(i, days.length, 0, max)
          return <text class="tick" x={x} y={CHART.height - 8} text-anchor="middle">{day.slice(5)}</text>
        })}
        {loops.map((loop, n) => {
          const points = days.map((day, i) => {
            const row = byKey.get(`${loop}\u0000${day}`)
            return { day, value: valueOf(props.metric, row), ...pointAt(i, days.length, valueOf(props.metric, row), max) }
          })
          return (
            <g class={`series s${n % 6}`} data-testid="usage-series" data-loop={loop}>
              <polyline fill="none" points={points.map((p) => `${p.x},${p.y}`).join(" ")} />
              {points.map((p) => (
                <circle r={3.5} cx={p.x} cy={p.y} data-testid="usage-point" data-loop={loop} data-day={p.day} data-value={String(p.value)}>
                  <title>{`${loop}, ${p.day}: ${label(props.metric, p.value)}`}</title>
                </circle>
              ))}
            </g>
          )
        })}
      </svg>
      <figcaption>
        {title}:{" "}
        {loops.map((loop, n) => <span class={`legend s${n % 6}`}>{loop}</span>)}
        {loops.length === 0 ? <span class="empty">nothing used in these days</span> : null}
      </figcaption>
    </figure>
  )
}
