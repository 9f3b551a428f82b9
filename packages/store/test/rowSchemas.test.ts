import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { column } from "@usine/store/column"
import { OptionalFromNull } from "@usine/store/OptionalFromNull"
import { UndefinedFromNull } from "@usine/store/UndefinedFromNull"

// A row as the ledger stores it (snake_case, NULLs) and the record the store hands out, stated once.
const Row = Schema.Struct({
  itemKey: column("item_key", Schema.String),
  lastHead: column("last_head", UndefinedFromNull(Schema.String)),
  tool: OptionalFromNull(Schema.String),
  usage: OptionalFromNull(Schema.parseJson(Schema.Struct({ tokens: Schema.Number }))).pipe(Schema.fromKey("usage_json"))
})

describe("row schemas", () => {
  it("read NULL columns as undefined or absent and write them back as NULL", () => {
    const stored = { item_key: "o/r#1", last_head: null, tool: null, usage_json: null }
    const record = Schema.decodeUnknownSync(Row)({ ...stored, updated_at: 5 })
    assert.deepStrictEqual(record, { itemKey: "o/r#1", lastHead: undefined })
    assert.isTrue("lastHead" in record)
    assert.isFalse("tool" in record)
    assert.deepStrictEqual(Schema.encodeSync(Row)(record), stored)
  })

  it("read set columns under their field names and write them back under their column names", () => {
    const stored = { item_key: "o/r#1", last_head: "abc", tool: "bash", usage_json: "{\"tokens\":3}" }
    const record = Schema.decodeUnknownSync(Row)(stored)
    assert.deepStrictEqual(record, { itemKey: "o/r#1", lastHead: "abc", tool: "bash", usage: { tokens: 3 } })
    assert.deepStrictEqual(Schema.encodeSync(Row)(record), stored)
  })

  it("refuse a value of the wrong type rather than read it as absent", () => {
    assert.throws(() => Schema.decodeUnknownSync(Row)({ item_key: "o/r#1", last_head: 7, tool: null, usage_json: null }))
    assert.throws(() => Schema.decodeUnknownSync(Row)({ item_key: "o/r#1", last_head: null, tool: 7, usage_json: null }))
  })
})
