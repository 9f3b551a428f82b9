import { Cron, CronPattern } from "croner"
import { ParseResult, Schema } from "effect"

/** When a schedule Loop fires: a five-field cron pattern read in an IANA time zone. */
export interface CronSchedule {
  readonly cron: string
  readonly tz: string
  /** The compiled pattern with its zone; use `nextRun` / `previousRuns`. It never starts a timer. */
  readonly pattern: Cron
}

export const makeCronSchedule = (cron: string, tz: string): CronSchedule => ({
  cron,
  tz,
  pattern: new Cron(cron, { timezone: tz, mode: "5-part" })
})

/** A five-field cron pattern (`minute hour day-of-month month day-of-week`), checked at load. */
export const CronPatternString = Schema.transformOrFail(
  Schema.String.annotations({ description: "a cron pattern" }),
  Schema.String,
  {
    strict: true,
    decode: (pattern, _, ast) => {
      try {
        new CronPattern(pattern, undefined, { mode: "5-part" })
        return ParseResult.succeed(pattern.trim())
      } catch (error) {
        const reason = (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, "")
        return ParseResult.fail(
          new ParseResult.Type(ast, pattern, `invalid cron pattern: ${reason} (five fields: minute hour day month weekday)`)
        )
      }
    },
    encode: ParseResult.succeed
  }
)

/** An IANA time zone name (`Europe/Paris`, `UTC`), normalized to its canonical spelling. */
export const TimeZone = Schema.transformOrFail(Schema.String.annotations({ description: "a time zone" }), Schema.String, {
  strict: true,
  decode: (zone, _, ast) => {
    try {
      return ParseResult.succeed(new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone)
    } catch {
      return ParseResult.fail(
        new ParseResult.Type(ast, zone, `unknown time zone ${JSON.stringify(zone)}; expected an IANA name like \`Europe/Paris\` or \`UTC\``)
      )
    }
  },
  encode: ParseResult.succeed
})
