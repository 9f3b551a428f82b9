import type { FC } from "hono/jsx"
import type { StripBar } from "../BoardViews/attemptStrip"
import { toolDuration } from "./transcript/toolDuration"

const WIDTH = 1000
const ROW = 24
const BAR = 16

const took = (from: number, to: number) => toolDuration(to - from)

/**
 * The Run's Attempts on one time axis, server-rendered SVG: a bar per Attempt coloured by its outcome, the shown
 * Attempt's phases drawn inside it. The SVG is a picture only; the list below says the same in words.
 */
export const AttemptStrip: FC<{ bars: ReadonlyArray<StripBar> }> = ({ bars }) => {
  if (bars.length === 0) return null
  const t0 = Math.min(...bars.map((b) => b.from))
  const t1 = Math.max(t0 + 1, ...bars.map((b) => b.to))
  const x = (at: number) => Math.round(((at - t0) * WIDTH * 10) / (t1 - t0)) / 10
  const w = (from: number, to: number) => Math.max(2, x(to) - x(from))
  return (
    <figure class="strip" data-testid="attempt-strip">
      <svg viewBox={`0 0 ${WIDTH} ${bars.length * ROW}`} height={bars.length * ROW} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {bars.map((bar, i) => (
          <g data-testid="attempt-bar" data-attempt={String(bar.number)} data-outcome={bar.outcome}>
            <rect class={`bar ${bar.outcome}`} x={x(bar.from)} y={i * ROW + (ROW - BAR) / 2} width={w(bar.from, bar.to)} height={BAR} />
            {bar.phases.map((p) => (
              <rect class={`phase ${p.name}`} data-testid="phase-bar" data-phase={p.name} x={x(p.from)} y={i * ROW + (ROW - BAR) / 2 + 3} width={w(p.from, p.to)} height={BAR - 6} />
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ol class="strip-text">
          {bars.map((bar) => (
            <li data-testid="attempt-strip-text">
              <span class={`swatch bar ${bar.outcome}`} />
              {`Attempt ${bar.number}: ${bar.outcome.toLowerCase()}, ${took(bar.from, bar.to)}`}
              {bar.phases.length === 0 ? null : (
                <span class="phases">
                  {" — "}
                  {bar.phases.map((p, i) => (
                    <>{i === 0 ? "" : ", "}<span class={`swatch phase ${p.name}`} />{`${p.name} ${took(p.from, p.to)}`}</>
                  ))}
                </span>
              )}
            </li>
          ))}
        </ol>
      </figcaption>
    </figure>
  )
}
