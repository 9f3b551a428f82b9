import { Schema } from "effect"

/** One gate's setting: a person must approve, or nobody is asked. */
const GateSetting = Schema.Literal("required", "none")
type GateSetting = typeof GateSetting.Type


const ApprovalMap = Schema.Struct({
  start: Schema.optionalWith(GateSetting, { default: () => "required" as const }),
  pullRequest: Schema.optionalWith(GateSetting, { default: () => "none" as const }).pipe(Schema.fromKey("pull_request"))
})

/**
 * `approval:` as written: `required | none` is the shorthand for `start`, or a map `{start, pull_request}`. Decodes
 * to both gates, `start: required` and `pull_request: none` by default.
 */
export const ApprovalConfig = Schema.transform(Schema.Union(GateSetting, ApprovalMap), Schema.typeSchema(ApprovalMap), {
  strict: true,
  decode: (written) => (typeof written === "string" ? { start: written, pullRequest: "none" as const } : written),
  encode: (approval) => approval
})
