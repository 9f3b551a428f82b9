import { ParseResult, Schema } from "effect"
import { Name, NonNegativeInt, PositiveInt, RepositoryName } from "@usine/core/config/ConfigScalars"
import { ItemKey, parseItemKey } from "@usine/core/ids/ItemKey"
import { RunStateTagSchema } from "@usine/store/ReadModel/RunSummary"
import { back, numberField, optionalNumber, optionalText, trimmedText } from "./formFields"

/** What an operator writes (a change request, a message to an agent): trimmed, not empty, at most 20,000 characters. */
const Writing = (whenEmpty: string) =>
  trimmedText(
    Schema.String.pipe(
      Schema.filter((text) => text.length > 0 || whenEmpty),
      Schema.maxLength(20_000, { description: "at most 20,000 characters" })
    )
  )

const Version = optionalNumber(NonNegativeInt)

export const RunParams = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/), Schema.annotations({ description: "a run id (32 hex digits)" }))
})

export const VersionedForm = Schema.Struct({ version: Version, back })
export const PlainForm = Schema.Struct({ back })
export const EditAndRetryForm = Schema.Struct({
  version: Version,
  task: optionalText(Schema.String),
  agent: optionalText(Name),
  model: optionalText(Schema.String),
  back
})
export const RequestChangesForm = Schema.Struct({ version: Version, text: Writing("write what to change"), back })
export const InterveneForm = Schema.Struct({
  attemptId: Schema.String.pipe(
    Schema.pattern(/^[0-9a-f]{32}\/[a-z0-9_-]+\/\d+$/),
    Schema.annotations({ description: "an attempt id (`<run id>/<step>/<number>`)" })
  ),
  message: Writing("write a message"),
  back
})
export const LoopParams = Schema.Struct({ loop: Name })

const isItemKey = (key: string): boolean => {
  try {
    return parseItemKey(ItemKey(key)) !== undefined
  } catch {
    return false
  }
}
const ItemKeyField = Schema.String.pipe(
  Schema.filter(isItemKey),
  Schema.annotations({ description: "an item key (`[\"github\", \"owner/name\", number]` as JSON)" })
)

export const ResetForm = Schema.Struct({ itemKey: ItemKeyField, askId: optionalText(Schema.String), back })

/** Today's cap of a Loop, or of the daemon without `loop`: tokens, dollars, or both. */
export const RaiseCapForm = Schema.Struct({
  loop: optionalText(Name),
  tokens: optionalNumber(PositiveInt),
  costUsd: optionalNumber(
    Schema.Number.pipe(Schema.finite(), Schema.positive(), Schema.annotations({ description: "a positive amount of dollars" }))
  ),
  back
}).pipe(
  Schema.filter((form) =>
    form.tokens !== undefined || form.costUsd !== undefined || { path: ["tokens"], message: "give tokens or costUsd" }
  )
)
export const ClearParkForm = Schema.Struct({ loop: Name, itemKey: ItemKeyField, back })
export const MoveForm = Schema.Struct({
  repository: RepositoryName,
  number: numberField(PositiveInt),
  column: Schema.String.pipe(Schema.filter((column) => column.length > 0 || "choose a column")),
  back
})
export const LoginForm = Schema.Struct({
  token: Schema.String.pipe(Schema.filter((token) => token.length > 0 || "enter the board token"))
})

/** A time as epoch milliseconds, or anything `Date.parse` reads (`2026-05-01`, `2026-05-01T10:00:00Z`). */
const Instant = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (text, _, ast) => {
    const millis = /^\d+$/.test(text) ? Number(text) : Date.parse(text)
    return Number.isNaN(millis)
      ? ParseResult.fail(new ParseResult.Type(ast, text, `expected a date and time, got ${JSON.stringify(text)}`))
      : ParseResult.succeed(millis)
  },
  encode: (millis) => ParseResult.succeed(String(millis))
})

export const RunsQuerySchema = Schema.Struct({
  loop: optionalText(Schema.String),
  repository: optionalText(Schema.String),
  item: optionalText(
    Schema.String.pipe(
      Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+#\d+$/),
      Schema.annotations({ description: "an item as `owner/name#number`" })
    )
  ),
  state: optionalText(RunStateTagSchema),
  since: optionalText(Instant),
  until: optionalText(Instant),
  /** The `next` cursor of the previous page. */
  before: optionalText(Schema.String)
})

/** The Audit page's filters (ADR 0107): who (`operator` for the Board token), where, what, when, and the page. */
export const AuditQuerySchema = Schema.Struct({
  login: optionalText(Schema.String),
  repository: optionalText(Schema.String),
  action: optionalText(Schema.String),
  loop: optionalText(Schema.String),
  since: optionalText(Instant),
  until: optionalText(Instant),
  before: optionalText(Schema.String),
  limit: optionalNumber(PositiveInt)
})

export const RunPageQuery = Schema.Struct({ attempt: optionalNumber(PositiveInt) })
export const StreamQuery = Schema.Struct({
  attempt: optionalText(Schema.String),
  after: optionalNumber(NonNegativeInt),
  version: optionalNumber(NonNegativeInt),
  note: optionalNumber(NonNegativeInt)
})
