import { Option, Schema } from "effect"

/** A nullable column as an optional field: SQL NULL reads as an absent key, and an absent key writes NULL. */
export const OptionalFromNull = <A, I, R>(self: Schema.Schema<A, I, R>) =>
  Schema.requiredToOptional(Schema.NullOr(self), Schema.typeSchema(self), {
    decode: Option.fromNullable,
    encode: Option.getOrNull
  })
