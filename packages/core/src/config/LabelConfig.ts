import { Schema } from "effect"
import { NonEmptyString } from "./ConfigScalars"

const HexColor = Schema.transform(
  Schema.String.pipe(
    Schema.pattern(/^#?[0-9a-fA-F]{6}$/),
    Schema.annotations({ description: 'a colour as six hex digits in quotes, like "0e8a16"' })
  ),
  Schema.String,
  { strict: true, decode: (color) => color.replace(/^#/, "").toLowerCase(), encode: (color) => color }
)

/** A label usine creates in each repository that lacks it. */
export const LabelConfig = Schema.Struct({
  name: NonEmptyString,
  color: Schema.optionalWith(HexColor, { default: () => "ededed" }),
  description: Schema.optionalWith(Schema.String, { default: () => "" })
})
export type LabelConfig = typeof LabelConfig.Type
