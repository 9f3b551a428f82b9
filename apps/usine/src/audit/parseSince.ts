/** How many milliseconds each unit of a relative time is. */
const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 }

/**
 * A time given to `usine audit`: back from `now` (`30m`, `12h`, `7d`) or anything `Date.parse` reads
 * (`2026-12-01`, `2026-12-01T09:00Z`); undefined when it is neither.
 */
export const parseSince = (text: string, now: number): number | undefined => {
  const relative = /^(\d+)\s*([mhd])$/.exec(text.trim())
  if (relative !== null) return now - Number(relative[1]) * (UNITS[relative[2] ?? ""] ?? 0)
  const millis = Date.parse(text)
  return Number.isNaN(millis) ? undefined : millis
}
