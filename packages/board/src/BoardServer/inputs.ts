import { Data, Effect } from "effect"
import { z } from "zod"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"

/** A request field is missing or malformed (the board answers 400 naming it). */
class InvalidInput extends Data.TaggedError("InvalidInput")<{ readonly field: string; readonly detail: string }> {
  override get message() {
    return `${this.field}: ${this.detail}`
  }
}

/** Validates at the edge; the first problem names its field. */
export const parseInput = <T extends z.ZodType>(schema: T, data: unknown): Effect.Effect<z.output<T>, InvalidInput> => {
  const result = schema.safeParse(data)
  if (result.success) return Effect.succeed(result.data)
  const issue = result.error.issues[0]
  return Effect.fail(new InvalidInput({ field: issue?.path.join(".") || "request", detail: issue?.message ?? "invalid" }))
}

/** An empty form field means "not given". */
const optionalText = z.string().trim().optional().transform((v) => (v === "" ? undefined : v))
const optionalInt = (min: number) =>
  z.union([z.string(), z.number()]).optional()
    .transform((v) => (v === undefined || v === "" ? undefined : Number(v)))
    .pipe(z.number().int().min(min).optional())
/** Where a form post returns: a path on this Board, never another site. */
const back = optionalText.pipe(z.string().regex(/^\/(?![/\\])[^\s\\]*$/).optional().catch(undefined))
const name = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, "expected a name like start-dev")

export const RunParams = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/, "expected a run id") })

export const VersionedForm = z.object({ version: optionalInt(0), back })
export const PlainForm = z.object({ back })
export const EditAndRetryForm = z.object({
  version: optionalInt(0),
  task: optionalText,
  agent: optionalText.pipe(name.optional()),
  model: optionalText,
  back
})
export const RequestChangesForm = z.object({
  version: optionalInt(0),
  text: z.string().trim().min(1, "write what to change").max(20_000),
  back
})
export const InterveneForm = z.object({
  attemptId: z.string().regex(/^[0-9a-f]{32}\/[a-z0-9_-]+\/\d+$/, "expected an attempt id"),
  message: z.string().trim().min(1, "write a message").max(20_000),
  back
})
export const LoopParams = z.object({ loop: name })
const itemKey = z.string().min(1).refine((key) => {
  try {
    const value: unknown = JSON.parse(key)
    return Array.isArray(value) && value[0] === "github" && typeof value[1] === "string"
  } catch {
    return false
  }
}, "expected an item key")
export const ResetForm = z.object({ itemKey, askId: optionalText, back })
const optionalAmount = z.union([z.string(), z.number()]).optional()
  .transform((v) => (v === undefined || v === "" ? undefined : Number(v)))
  .pipe(z.number().positive().optional())
/** Today's cap of a Loop, or of the daemon without `loop`: tokens, dollars, or both. */
export const RaiseCapForm = z.object({ loop: optionalText.pipe(name.optional()), tokens: optionalInt(1), costUsd: optionalAmount, back })
  .refine((form) => form.tokens !== undefined || form.costUsd !== undefined, { message: "give tokens or costUsd", path: ["tokens"] })
export const ClearParkForm = z.object({ loop: name, itemKey, back })
export const MoveForm = z.object({
  repository: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/, "expected owner/name"),
  number: optionalInt(1).pipe(z.number()),
  column: z.string().min(1, "choose a column"),
  back
})
export const LoginForm = z.object({ token: z.string().min(1, "enter the board token") })

const instant = optionalText.transform((v, ctx) => {
  if (v === undefined) return undefined
  const millis = /^\d+$/.test(v) ? Number(v) : Date.parse(v)
  if (Number.isNaN(millis)) ctx.addIssue({ code: "custom", message: "expected a date and time" })
  return millis
})

export const RunsQuerySchema = z.object({
  loop: optionalText,
  repository: optionalText,
  /** `owner/name#number` */
  item: optionalText.pipe(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+#\d+$/, "expected owner/name#number").optional()),
  state: optionalText.pipe(z.enum(RUN_STATE_TAGS).optional()),
  since: instant,
  until: instant,
  before: optionalText
})

export const RunPageQuery = z.object({ attempt: optionalInt(1) })
export const StreamQuery = z.object({ attempt: optionalText, after: optionalInt(0), version: optionalInt(0), note: optionalInt(0) })
