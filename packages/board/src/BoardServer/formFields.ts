import { ParseResult, Schema } from "effect"

/** Text as a form or a JSON body sends it, trimmed; an empty field means "not given". */
const BlankAsAbsent = Schema.transform(Schema.String, Schema.UndefinedOr(Schema.String), {
  strict: true,
  decode: (text) => (text.trim() === "" ? undefined : text.trim()),
  encode: (text) => text ?? ""
})

/** An optional text field, trimmed, empty read as absent; `to` checks and reads what was given. */
export const optionalText = <A, I extends string>(to: Schema.Schema<A, I>) =>
  Schema.optional(Schema.compose(BlankAsAbsent, Schema.UndefinedOr(to)))

/** A required text field, trimmed; `to` checks what is left (its length, its shape). */
export const trimmedText = <A>(to: Schema.Schema<A, string>) =>
  Schema.compose(Schema.transform(Schema.String, Schema.String, { strict: true, decode: (text) => text.trim(), encode: (text) => text }), to)

/** A number field's value: text from a form, a number from a JSON body. */
const NumberInput = Schema.Union(Schema.String, Schema.Number).annotations({ description: "a number" })

/** What `Number()` reads from a form field (a string) or a JSON number; text it cannot read, or an empty field, is refused. */
const NumberFromField = Schema.transformOrFail(
  NumberInput,
  Schema.Number,
  {
    strict: true,
    decode: (value, _, ast) => {
      const number = Number(value)
      return value === "" || Number.isNaN(number)
        ? ParseResult.fail(new ParseResult.Type(ast, value, `expected a number, got ${JSON.stringify(value)}`))
        : ParseResult.succeed(number)
    },
    encode: ParseResult.succeed
  }
)

/** A required number field; `to` checks its range. */
export const numberField = <A>(to: Schema.Schema<A, number>) => Schema.compose(NumberFromField, to)

/** An empty number field means "not given" (not zero). */
const EmptyAsAbsent = Schema.transform(
  NumberInput,
  Schema.UndefinedOr(NumberInput),
  { strict: true, decode: (value) => (value === "" ? undefined : value), encode: (value) => value ?? "" }
)

/** An optional number field, empty read as absent; `to` checks its range. */
export const optionalNumber = <A>(to: Schema.Schema<A, number>) =>
  Schema.optional(Schema.compose(EmptyAsAbsent, Schema.UndefinedOr(numberField(to))))

/** Where a form post returns: a path on this Board; another site (or anything else) is dropped, not refused. */
export const back = Schema.optional(
  Schema.compose(
    BlankAsAbsent,
    Schema.transform(Schema.UndefinedOr(Schema.String), Schema.UndefinedOr(Schema.String), {
      strict: true,
      decode: (path) => (path !== undefined && /^\/(?![/\\])[^\s\\]*$/.test(path) ? path : undefined),
      encode: (path) => path
    })
  )
)
