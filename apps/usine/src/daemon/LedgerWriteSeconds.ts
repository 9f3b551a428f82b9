import { Context, Effect, Layer } from "effect"
import { Histogram } from "prom-client"
import { LedgerWrites } from "@usine/store/LedgerWrites"

/** Seconds: a ledger transaction is a few statements on one local SQLite connection, or a wait for it. */
const LEDGER_WRITE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

/** The histogram of ledger transaction durations, which `/metrics` shows (ADR 0060). */
export class LedgerWriteSeconds extends Context.Tag("usine/LedgerWriteSeconds")<LedgerWriteSeconds, Histogram>() {}

/**
 * Fills the store's `LedgerWrites` hook with a prom-client histogram, provided around the daemon so the ledger is
 * timed from its first transaction; `DaemonMetrics` registers the histogram.
 */
export const LedgerWriteSecondsLayer: Layer.Layer<LedgerWriteSeconds> = Layer.effectContext(
  Effect.sync(() => {
    const histogram = new Histogram({
      name: "usine_ledger_write_duration_seconds",
      help: "How long ledger transactions took, from the wait for the connection to the commit.",
      buckets: LEDGER_WRITE_BUCKETS,
      registers: []
    })
    return Context.make(LedgerWriteSeconds, histogram).pipe(
      Context.add(LedgerWrites, { observe: (seconds: number) => histogram.observe(seconds) })
    )
  })
)
