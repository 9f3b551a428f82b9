import { Effect } from "effect"
import { version } from "../../package.json"
import { LedgerMigrations, ledgerMigrations } from "../ledger/LedgerMigrations"
import { type DoctorLine, fail, pass } from "./DoctorLine"

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`

/** The ledger's migrations against this usine's: current, behind (applied at the next start), or ahead (refused). */
export const checkLedgerMigrations = (file: string): Effect.Effect<DoctorLine> =>
  ledgerMigrations(file).pipe(
    Effect.map(
      LedgerMigrations.$match({
        NoLedger: ({ known }) => pass(`ledger: ${file} does not exist yet; usine up creates it with ${plural(known, "migration")}`),
        Current: ({ latest }) => pass(`ledger: ${file} is at ${latest}, the latest migration usine ${version} knows`),
        Behind: ({ latest, pending }) =>
          pass(`ledger: ${file} is at ${latest ?? "no migration"}; usine up applies ${plural(pending.length, "migration")} at its start (${pending.join(", ")})`),
        Ahead: ({ unknown }) =>
          fail(`ledger: ${file} was migrated by a newer usine (${unknown.join(", ")}, unknown to usine ${version}); usine up refuses it: upgrade usine`)
      })
    ),
    Effect.catchTag("LedgerUnreadable", (error) => Effect.succeed(fail(`ledger: ${error.message}`)))
  )
