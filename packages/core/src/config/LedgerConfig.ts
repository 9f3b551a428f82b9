import { ParseResult, Redacted, Schema } from "effect"
import { NonEmptyString } from "./ConfigScalars"

/** Where the ledger lives: a SQLite file, or a PostgreSQL database whose URL (it may hold a password) stays redacted. */
export type LedgerPlace =
  | { readonly _tag: "sqlite"; readonly file: string }
  | {
    readonly _tag: "postgres"
    readonly url: Redacted.Redacted<string>
    /** A file holding the password, kept out of the URL (and out of usine.yaml). */
    readonly passwordFile: string | undefined
  }

const isPostgresUrl = (text: string) => /^postgres(ql)?:\/\//.test(text)

/** A `postgres://` URL, decoded redacted; a failure names what was expected, never the URL it was given. */
const PostgresUrl = Schema.transformOrFail(
  Schema.String.annotations({ description: "a string" }),
  Schema.RedactedFromSelf(Schema.String),
  {
    strict: true,
    decode: (text, _, ast) =>
      isPostgresUrl(text)
        ? ParseResult.succeed(Redacted.make(text))
        : ParseResult.fail(new ParseResult.Type(ast, Redacted.make(text), "expected a postgres:// or postgresql:// URL")),
    encode: (url) => ParseResult.succeed(Redacted.value(url))
  }
)

const PostgresLedger = Schema.Struct({
  url: PostgresUrl,
  passwordFile: Schema.optional(NonEmptyString).pipe(Schema.fromKey("password_file"))
})

/**
 * `ledger:` (issue 36): a path is a SQLite file (the default); `postgres://…` is a PostgreSQL database; or
 * `{url, password_file}` to keep the password out of the URL. The URL is redacted wherever the config is shown.
 */
export const LedgerConfig = Schema.transform(
  Schema.Union(NonEmptyString, PostgresLedger),
  Schema.Union(
    Schema.Struct({ _tag: Schema.Literal("sqlite"), file: Schema.String }),
    Schema.Struct({
      _tag: Schema.Literal("postgres"),
      url: Schema.RedactedFromSelf(Schema.String),
      passwordFile: Schema.UndefinedOr(Schema.String)
    })
  ),
  {
    strict: true,
    decode: (written) =>
      typeof written !== "string"
        ? { _tag: "postgres" as const, url: written.url, passwordFile: written.passwordFile }
        : isPostgresUrl(written)
        ? { _tag: "postgres" as const, url: Redacted.make(written), passwordFile: undefined }
        : { _tag: "sqlite" as const, file: written },
    encode: (place) =>
      place._tag === "sqlite"
        ? place.file
        : place.passwordFile === undefined
        ? Redacted.value(place.url)
        : { url: place.url, ...(place.passwordFile === undefined ? {} : { passwordFile: place.passwordFile }) }
  }
)

/** A PostgreSQL URL as it may be shown: its password, if any, replaced by `***`. */
export const shownUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    return parsed.toString()
  } catch {
    return "(an unparsable URL)"
  }
}

/** Where the ledger is, for a log line or a page: the SQLite file, or the PostgreSQL URL without its password. */
export const shownLedger = (ledger: LedgerPlace): string =>
  ledger._tag === "sqlite" ? ledger.file : shownUrl(Redacted.value(ledger.url))
