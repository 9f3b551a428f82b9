/**
 * How long a tool call took: milliseconds under a second, tenths of seconds under a minute, then minutes and seconds.
 * boardScript's `duration` says the same for rows the live stream pairs.
 */
export const toolDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)} min ${s % 60} s`
}
