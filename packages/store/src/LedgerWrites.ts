import { Context } from "effect"

/**
 * Told how long each ledger transaction took, from its first statement's wait for the connection to its commit or
 * rollback: the daemon's metrics fill it (`usine_ledger_write_duration_seconds`), no store caller knows of it. A
 * reference, so a ledger opened without it (tests, tools) times nothing.
 */
export class LedgerWrites extends Context.Reference<LedgerWrites>()("usine/LedgerWrites", {
  defaultValue: (): { readonly observe: (seconds: number) => void } => ({ observe: () => {} })
}) {}
