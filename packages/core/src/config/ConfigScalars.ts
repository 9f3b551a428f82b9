import { Duration, Option, ParseResult, Redacted, Schema } from "effect"

/** A Loop, Agent or Worker name; safe inside a branch name. */
export const Name = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9_-]*$/),
  Schema.annotations({ description: "a name of lowercase letters, digits, `-` and `_` (like `start-dev`)" })
)

/** `owner/name` of a GitHub repository. */
export const RepositoryName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/),
  Schema.annotations({ description: "a repository as `owner/name`" })
)

/** `owner/name` where either part may hold `*` wildcards (`acme/*`). */
export const RepositoryPattern = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9*][A-Za-z0-9*-]*\/[A-Za-z0-9._*-]+$/),
  Schema.annotations({ description: "a repository `owner/name`, `*` allowed (like `acme/*`)" })
)

export const PositiveInt = Schema.Number.pipe(
  Schema.int(),
  Schema.positive(),
  Schema.annotations({ description: "a positive whole number" })
)

/** Minutes where a fraction makes sense (a stall of 0.5 is thirty seconds). */
export const PositiveMinutes = Schema.Number.pipe(
  Schema.positive(),
  Schema.annotations({ description: "a positive number of minutes (fractions allowed)" })
)

export const NonNegativeInt = Schema.Number.pipe(
  Schema.int(),
  Schema.nonNegative(),
  Schema.annotations({ description: "a whole number, 0 or more" })
)

export const EnvName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/),
  Schema.annotations({ description: "an environment variable name" })
)

/** A network endpoint an agent's sandbox may reach, `host:port` (ADR 0054). */
export const NetworkEndpoint = Schema.String.pipe(
  Schema.pattern(/^(?=.{1,260}$)[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?:(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/),
  Schema.annotations({ description: "a `host:port` endpoint (like `registry.npmjs.org:443`)" })
)

export const NonEmptyString = Schema.String.pipe(
  Schema.minLength(1),
  Schema.annotations({ description: "a non-empty string" })
)

/** A secret; an empty string (what `${TOKEN:-}` gives when TOKEN is unset) means none. */
export const Secret = Schema.transform(
  Schema.String.annotations({ description: "a string" }),
  Schema.OptionFromSelf(Schema.RedactedFromSelf(Schema.String)),
  {
    strict: true,
    decode: (text) => (text === "" ? Option.none() : Option.some(Redacted.make(text))),
    encode: (secret) => Option.match(secret, { onNone: () => "", onSome: Redacted.value })
  }
)

const durationUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }

/** Seconds as a number, or a duration string: `500ms`, `30s`, `5m`, `1h`. */
export const Interval = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String).annotations({ description: "seconds, or a duration like `30s`, `5m`" }),
  Schema.DurationFromSelf,
  {
    strict: true,
    decode: (input, _, ast) => {
      const match = typeof input === "number" ? null : /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)$/.exec(input.trim())
      const millis =
        typeof input === "number" ? input * 1000 : match ? Number(match[1]) * (durationUnits[match[2] ?? "s"] ?? 0) : NaN
      return Number.isFinite(millis) && millis >= 1000
        ? ParseResult.succeed(Duration.millis(millis))
        : ParseResult.fail(
            new ParseResult.Type(ast, input, `expected seconds, or a duration of at least 1s like \`30s\` or \`5m\`, got ${JSON.stringify(input)}`)
          )
    },
    encode: (duration) => ParseResult.succeed(Duration.toSeconds(duration))
  }
)
