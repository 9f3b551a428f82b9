import * as SqlClient from "@effect/sql/SqlClient"
import { Clock, Data, Deferred, Duration, Effect, Fiber, Layer, Option, Schedule, type Scope } from "effect"
import * as PgSql from "./PgSql"

/** The node that leads a shared ledger, as the ledger says. */
interface Leader {
  readonly node: string
  readonly epoch: number
  /** Epoch millis, on the database's clock. */
  readonly expiresAt: number
}

/** This node no longer leads: its lease was taken, or it could not renew it in time. It must stop acting. */
class LeadershipLost extends Data.TaggedError("LeadershipLost")<{
  readonly node: string
  readonly epoch: number
  readonly reason: string
}> {
  override get message() {
    return `this node (${this.node}) no longer leads the ledger (epoch ${this.epoch}): ${this.reason}`
  }
}

/** A lease this node holds for as long as the scope `lead` was run in lives. */
interface Lease {
  readonly epoch: number
  /** Completes when the lease is lost; the node must stop acting then. */
  readonly lost: Effect.Effect<LeadershipLost>
  /**
   * Fails unless the lease is still good by this process's own clock: renewed within half the lease, so well before
   * the ledger lets another node take over. Asked before an action outside the ledger (a push, a pull request).
   */
  readonly check: Effect.Effect<void, LeadershipLost>
}

interface LeadershipOptions {
  /** This process's name in the ledger: the connection's `application_name`, unique per process start. */
  readonly node: string
  /** How long a lease lasts unless renewed: a leader's loss is noticed within this plus `retry`. */
  readonly lease: Duration.DurationInput
  /** How often a standby tries to take an expired lease. */
  readonly retry: Duration.DurationInput
}

const LeaderRow = (row: { node: string; epoch: number; expires_at: number }): Leader => ({
  node: row.node,
  epoch: row.epoch,
  expiresAt: row.expires_at
})

/**
 * Leadership of a PostgreSQL ledger shared by several daemons (ADR 0109): a lease in `usine_leadership`, taken when
 * expired with the epoch raised, renewed every fifth of its length, handed back when the scope closes. The ledger
 * fences every write by the leader's node (migration 0002), so a deposed leader's writes fail there; `check` and
 * `lost` let it stop acting outside the ledger too, half a lease before anyone may take over.
 */
export const makeLedgerLeadership = (options: LeadershipOptions) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const leaseMs = Duration.toMillis(options.lease)
    const node = options.node

    const current: Effect.Effect<Option.Option<Leader>> = sql<{ node: string; epoch: number; expires_at: number }>`
      SELECT node, epoch, (extract(epoch FROM expires_at) * 1000)::bigint AS expires_at FROM usine_leadership WHERE id = 1
    `.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), LeaderRow)), Effect.orDie)

    /** Takes the lease if nobody holds it or it has expired; the new epoch, or none. */
    const take = sql<{ epoch: number }>`
      INSERT INTO usine_leadership (id, node, epoch, acquired_at, expires_at)
      VALUES (1, ${node}, 1, clock_timestamp(), clock_timestamp() + ${leaseMs} * interval '1 millisecond')
      ON CONFLICT (id) DO UPDATE SET
        node = EXCLUDED.node, epoch = usine_leadership.epoch + 1,
        acquired_at = EXCLUDED.acquired_at, expires_at = EXCLUDED.expires_at
      WHERE usine_leadership.expires_at <= clock_timestamp()
      RETURNING epoch
    `.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.epoch)))

    const renew = (epoch: number) =>
      sql<{ epoch: number }>`
        UPDATE usine_leadership SET expires_at = clock_timestamp() + ${leaseMs} * interval '1 millisecond'
        WHERE id = 1 AND node = ${node} AND epoch = ${epoch}
        RETURNING epoch
      `.pipe(Effect.map((rows) => rows.length === 1))

    const handBack = (epoch: number) =>
      sql`UPDATE usine_leadership SET expires_at = clock_timestamp() WHERE id = 1 AND node = ${node} AND epoch = ${epoch}`

    /** Whether the lease is held and good by the database's clock: a standby then does not queue for the row's lock. */
    const held = sql<{ held: boolean }>`
      SELECT expires_at > clock_timestamp() AS held FROM usine_leadership WHERE id = 1
    `.pipe(Effect.map((rows) => rows[0]?.held === true))

    const waitToLead: Effect.Effect<number> = Effect.flatMap(held, (isHeld) => (isHeld ? Effect.succeed(Option.none()) : take)).pipe(
      Effect.tapError((error) => Effect.logWarning(`could not try for the ledger's leadership: ${error.message}`)),
      Effect.option,
      Effect.map(Option.flatten),
      Effect.flatMap(Option.match({
        onSome: Effect.succeed,
        onNone: () => Effect.zipRight(Effect.sleep(options.retry), Effect.suspend(() => waitToLead))
      }))
    )

    const now = Effect.map(Clock.currentTimeNanos, (nanos) => Number(nanos / 1_000_000n))

    /**
     * Waits until this node leads, then keeps its lease for the caller's scope. A failed query while waiting is
     * logged and tried again; a failed renewal counts as none, and half a lease without one is a loss.
     */
    const lead: Effect.Effect<Lease, never, Scope.Scope> = Effect.gen(function*() {
      const epoch = yield* waitToLead
      const lost = yield* Deferred.make<LeadershipLost>()
      let gone = false
      const lose = (reason: string) =>
        Effect.suspend(() => {
          gone = true
          return Deferred.succeed(lost, new LeadershipLost({ node, epoch, reason }))
        })
      let renewedAt = yield* now
      const check = Effect.gen(function*() {
        const known = yield* Deferred.poll(lost)
        if (Option.isSome(known)) return yield* Effect.flatten(known.value).pipe(Effect.flip)
        const since = (yield* now) - renewedAt
        if (since >= leaseMs / 2) {
          yield* lose(`not renewed for ${since} ms`)
          return yield* Effect.fail(new LeadershipLost({ node, epoch, reason: `not renewed for ${since} ms` }))
        }
      })
      const renewal = Effect.gen(function*() {
        if (gone) return
        const sentAt = yield* now
        const kept = yield* renew(epoch).pipe(
          Effect.tapError((error) => Effect.logWarning(`could not renew the ledger's leadership: ${error.message}`)),
          Effect.option
        )
        if (Option.isSome(kept) && kept.value) renewedAt = sentAt
        if (Option.isSome(kept) && !kept.value) {
          const leader = yield* current
          yield* lose(Option.match(leader, {
            onNone: () => "its lease is gone",
            onSome: (l) => `${l.node} took the lease (epoch ${l.epoch})`
          }))
        }
      })
      // A lost lease is never renewed again: a node that judged itself deposed must not keep the lease alive.
      yield* renewal.pipe(
        // On a fixed cadence: a slow renewal must not push the next one later still.
        Effect.repeat({ schedule: Schedule.fixed(Duration.millis(leaseMs / 5)), while: () => !gone }),
        Effect.forkScoped
      )
      // The watchdog: a process paused past half its lease finds it lost on its first step back.
      yield* check.pipe(Effect.ignore, Effect.repeat(Schedule.spaced(Duration.millis(leaseMs / 20))), Effect.forkScoped)
      yield* Effect.addFinalizer(() => handBack(epoch).pipe(Effect.ignore))
      return { epoch, lost: Deferred.await(lost), check }
    })

    return { node, current, lead }
  })

interface LeadOptions {
  readonly address: PgSql.PgLedgerAddress & { readonly node: string }
  readonly lease: Duration.DurationInput
  readonly retry: Duration.DurationInput
  /**
   * Told once, when another node leads and this one starts to wait, with a read of who leads now; interrupted the
   * moment this node leads (a standby's Board runs there until then, ADR 0109).
   */
  readonly onStandby: (leader: Leader, current: Effect.Effect<Option.Option<Leader>>) => Effect.Effect<void>
}

/**
 * `usine up` on a PostgreSQL ledger: its own connection for the lease (so ledger work never delays a renewal),
 * waits until this node leads, and keeps the lease for the caller's scope. Returns the lease.
 */
export const leadLedger = (options: LeadOptions): Effect.Effect<Lease, PgSql.PgLayerError, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(PgSql.layer(options.address))
    const leadership = yield* makeLedgerLeadership({ node: options.address.node, lease: options.lease, retry: options.retry }).pipe(
      Effect.provide(context)
    )
    const told = yield* leadership.current.pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.void,
        onSome: (leader) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            leader.node !== options.address.node && leader.expiresAt > now ? options.onStandby(leader, leadership.current) : Effect.void)
      })),
      Effect.forkScoped
    )
    const lease = yield* leadership.lead
    yield* Fiber.interrupt(told)
    return lease
  })
