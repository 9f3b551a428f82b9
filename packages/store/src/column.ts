import { Schema } from "effect"

/**
 * A field the ledger stores under another name (`itemKey` in the column `item_key`): the row's schema names the
 * column once, and decoding and encoding both follow it.
 */
export const column = <Name extends string, S extends Schema.Schema.All>(name: Name, schema: S) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(name))
