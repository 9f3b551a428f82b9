import { Schema } from "effect"

/** A nullable column as an absent value: SQL NULL reads as `undefined`, and `undefined` writes NULL. */
export const UndefinedFromNull = <A, I, R>(self: Schema.Schema<A, I, R>) =>
  Schema.transform(Schema.NullOr(self), Schema.UndefinedOr(Schema.typeSchema(self)), {
    strict: true,
    decode: (value) => value ?? undefined,
    encode: (value) => value ?? null
  })
