import { Schema } from "effect"
import { PositiveInt } from "./ConfigScalars"

/**
 * `ha:` (issue 36, ADR 0109): several `usine up` on one PostgreSQL ledger, one leading. A leader's loss is noticed,
 * and another node leads, within `takeover_seconds`. Ignored on a SQLite ledger, which one process holds.
 */
export const HaConfig = Schema.Struct({
  takeoverSeconds: Schema.optionalWith(PositiveInt.pipe(Schema.greaterThanOrEqualTo(3)), { default: () => 15 }).pipe(
    Schema.fromKey("takeover_seconds")
  )
})
