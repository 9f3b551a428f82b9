/** The drawing's box, in SVG units; the SVG scales to its container's width. */
export const CHART = { width: 640, height: 220, left: 56, right: 12, top: 12, bottom: 28 } as const

/** Where a value sits: x by the day's place (oldest left), y from the bottom at 0 to the top at `max`. */
export const pointAt = (dayIndex: number, days: number, value: number, max: number) => {
  const plotW = CHART.width - CHART.left - CHART.right
  const plotH = CHART.height - CHART.top - CHART.bottom
  const x = CHART.left + (days <= 1 ? plotW / 2 : (dayIndex * plotW) / (days - 1))
  const y = CHART.top + plotH - (max <= 0 ? 0 : (value * plotH) / max)
  return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 }
}
