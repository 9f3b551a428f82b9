import type { CronSchedule } from "@usine/core/config/CronSchedule"
import type { TickFields } from "./ItemFields"

/** The latest Tick at or before `now` (epoch ms), if the pattern ever fired. */
export const latestTickAtOrBefore = (schedule: CronSchedule, now: number): number | undefined =>
  // croner counts a run earlier in the reference's second; one millisecond on makes `now` itself count.
  schedule.pattern.previousRuns(1, new Date(now + 1))[0]?.getTime()

/** The first Tick strictly after `now`. */
export const nextTickAfter = (schedule: CronSchedule, now: number): number | undefined =>
  schedule.pattern.nextRun(new Date(now))?.getTime() ?? undefined

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0")

/** ISO 8601 wall-clock time in the zone with its offset, like `2026-03-29T09:00:00+02:00`. */
const localIso = (at: number, tz: string): string => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit"
    })
      .formatToParts(new Date(at))
      .map((part) => [part.type, part.value])
  )
  const field = (name: string) => Number(parts[name])
  const wall = Date.UTC(field("year"), field("month") - 1, field("day"), field("hour"), field("minute"), field("second"))
  const offset = Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000)
  const sign = offset < 0 ? "-" : "+"
  const date = `${parts["year"]}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${parts["second"]}`
  return `${date}${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
}

/** `item.tick` of a schedule Loop's context. */
export const tickFieldsOf = (schedule: CronSchedule, at: number): TickFields => ({
  scheduledAt: new Date(at).toISOString(),
  scheduledAtLocal: localIso(at, schedule.tz),
  cron: schedule.cron,
  tz: schedule.tz
})
