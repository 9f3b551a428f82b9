import { Context, type Effect } from "effect"

/** Which ledger the Board reads, and on a shared PostgreSQL ledger who leads it (ADR 0109). */
export interface LedgerView {
  readonly engine: "SQLite" | "PostgreSQL"
  /** On PostgreSQL: this node's name, `usine@host:pid`. */
  readonly node?: string | undefined
  /** On PostgreSQL: the node that leads and its epoch, `usine@host:pid (epoch N)`. */
  readonly leader?: string | undefined
  /** This node waits while another leads: its Board is read-only and refuses every action. */
  readonly standby: boolean
}

/** The Board's ledger, as `/api/ledger`, `usine status` and the pages show it; absent, the Board says nothing of it. */
export class BoardLedger extends Context.Tag("usine/BoardLedger")<
  BoardLedger,
  {
    /** Read at each request: a standby's leader changes with each takeover. */
    readonly view: Effect.Effect<LedgerView>
  }
>() {}
