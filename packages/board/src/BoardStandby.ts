import { Context, type Effect } from "effect"

/**
 * Present when this Board is a standby's on a shared PostgreSQL ledger (ADR 0109): it shows the ledger read-only and
 * refuses every action, naming the node that leads (where the action is taken).
 */
export class BoardStandby extends Context.Tag("usine/BoardStandby")<
  BoardStandby,
  {
    /** Who leads the ledger now, as the operator should read it: `usine@host:pid (epoch N)`. */
    readonly leader: Effect.Effect<string>
  }
>() {}
