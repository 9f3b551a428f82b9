import { Schema } from "effect"
import { ItemKey } from "./ItemKey"

/**
 * Which Loop and Item a record is about, as schema fields: what a Submission, a Run, a Run's summary and a refused
 * trigger share. The Item's `number` stays with each record, absent for a schedule Tick.
 */
export const loopItemFields = {
  loop: Schema.String,
  itemKey: Schema.String.pipe(Schema.fromBrand(ItemKey)),
  repository: Schema.String
}
