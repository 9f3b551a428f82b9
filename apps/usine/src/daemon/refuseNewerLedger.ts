import { Data, Effect } from "effect"
import { version } from "../../package.json"
import { ledgerMigrations } from "../ledger/LedgerMigrations"

/** The ledger holds migrations this usine does not know: a newer usine migrated it. */
class LedgerFromNewerUsine extends Data.TaggedError("LedgerFromNewerUsine")<{
  readonly file: string
  readonly unknown: ReadonlyArray<string>
}> {
  override get message() {
    return `the ledger ${this.file} was migrated by a newer usine (${this.unknown.join(", ")}, unknown to usine ${version}): upgrade usine to run on it`
  }
}

/**
 * Refuses a ledger a newer usine migrated before the daemon opens it: the store's migrator would skip every
 * migration it knows and run this version's queries on a schema it has never seen.
 */
export const refuseNewerLedger = (file: string) =>
  Effect.flatMap(ledgerMigrations(file), (state) =>
    state._tag === "Ahead" ? Effect.fail(new LedgerFromNewerUsine({ file, unknown: state.unknown })) : Effect.void
  )
