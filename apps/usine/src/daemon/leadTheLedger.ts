import { readFileSync } from "node:fs"
import { Duration, Effect, Option, Redacted } from "effect"
import type { StartupPlan } from "./StartupPlan"

/** The exit code of a node that lost the ledger's leadership: its service manager starts it again, as a standby. */
const LOST_LEADERSHIP_EXIT = 3

/**
 * On a PostgreSQL ledger (ADR 0109): waits until this node leads it, saying who leads meanwhile; then, the moment
 * the lease is lost, ends the process at once: no drain, since a drain would act for a node that no longer leads.
 * The lease lasts two thirds of `ha.takeover_seconds`, a standby tries every second, so another node leads within
 * `takeover_seconds` of this one's loss; meanwhile `whileStandby` runs (the standby's read-only Board). Returns the
 * lease's epoch. On SQLite, none: one process holds the file (its lock), and the PostgreSQL client is not even loaded
 * (ADR 0095: a start loads what its ledger needs).
 */
export const leadTheLedger = (plan: StartupPlan, whileStandby: (leader: Effect.Effect<string>) => Effect.Effect<void> = () => Effect.void) => {
  const ledger = plan.ledger
  if (ledger._tag === "sqlite") return Effect.succeed(Option.none<number>())
  const takeover = plan.config.ha.takeoverSeconds
  return Effect.gen(function*() {
    const { leadLedger } = yield* Effect.promise(() => import("@usine/store/LedgerLeadership"))
    const lease = yield* leadLedger({
      address: {
        url: ledger.url,
        password: ledger.passwordFile === undefined ? undefined : Redacted.make(readFileSync(ledger.passwordFile, "utf8").trim()),
        node: plan.node
      },
      lease: Duration.millis((takeover * 1000 * 2) / 3),
      retry: Duration.seconds(1),
      onStandby: (leader, current) =>
        Effect.logInfo(`standby: ${leader.node} leads this ledger (epoch ${leader.epoch}); this node takes over if it stops`).pipe(
          Effect.zipRight(whileStandby(Effect.map(current, Option.match({
            onNone: () => "no node (the lease is free; a standby takes it within a second)",
            onSome: (now) => `${now.node} (epoch ${now.epoch})`
          }))))
        )
    })
    yield* Effect.logInfo(`leading the ledger as ${plan.node} (epoch ${lease.epoch})`)
    yield* lease.lost.pipe(
      Effect.flatMap((lost) => Effect.logError(`${lost.message}; exiting at once, without a drain, so another node leads alone`)),
      Effect.zipRight(Effect.sync(() => process.exit(LOST_LEADERSHIP_EXIT))),
      Effect.forkScoped
    )
    return Option.some(lease.epoch)
  })
}
