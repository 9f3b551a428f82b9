import type { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option, Runtime } from "effect"
import { BoardServer } from "@usine/board/BoardServer"
import { shownLedger } from "@usine/core/config/LedgerConfig"
import { trustWarnings } from "@usine/core/trust/trustWarnings"
import type { Executor } from "@usine/engine/Executor"
import { RunEngine } from "@usine/engine/RunEngine"
import { makeRedactor } from "@usine/core/text/Redactor"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { ScheduleTriggers } from "@usine/triggers/ScheduleTriggers"
import { watchConfig } from "../watchConfig"
import { DaemonLayer } from "./DaemonLayer"
import { DaemonTracing } from "./DaemonTracing"
import { serveStandbyBoard } from "../layers/StandbyBoardLayer"
import { leadTheLedger } from "./leadTheLedger"
import { LedgerWriteSecondsLayer } from "./LedgerWriteSeconds"
import { notifyLoop } from "./notifications"
import { writeBackLoop } from "./writeBack"
import type { StartupPlan } from "./StartupPlan"
import { wakeHeldRuns } from "./wakeHeldRuns"

/** The running daemon, for what runs beside it (the demo's auto-approval and exit condition). */
type DaemonServices = Layer.Layer.Success<ReturnType<typeof DaemonLayer>>

const signals = ["SIGINT", "SIGTERM"] as const

/** SIGINT and SIGTERM go to the engine's latch for the scope: the first drains, the second stops the wait. */
const onShutdownSignals = (engine: RunEngine) =>
  Effect.gen(function* () {
    const run = Runtime.runFork(yield* Effect.runtime<never>())
    const handler = (signal: NodeJS.Signals) =>
      run(
        Effect.flatMap(engine.requestShutdown, (step) =>
          Effect.logInfo(
            step === "Draining"
              ? `${signal}: draining; running attempts finish first (send ${signal} again to stop waiting)`
              : `${signal}: no longer waiting; running agent sessions keep running and are reattached at the next start`
          )
        )
      )
    yield* Effect.acquireRelease(
      Effect.sync(() => signals.forEach((signal) => process.on(signal, handler))),
      () => Effect.sync(() => signals.forEach((signal) => process.off(signal, handler)))
    )
  })

/**
 * Builds the daemon, starts the triggers and the configuration watcher, reports the Board's address, then waits for
 * a shutdown request and drains. The wait and the drain are uninterruptible: the runtime's own signal handler
 * interrupts the main fiber, and that interruption must wait until the drain is over. Traces, when the environment
 * asks for them, are set up around the whole daemon, so the drain's spans are sent too.
 */
export const serveDaemon = <E, R>(options: {
  readonly plan: StartupPlan
  readonly executor: Layer.Layer<Executor, E, R>
  readonly alongside?: (services: Context.Context<DaemonServices>, boardUrl: string) => Effect.Effect<void>
}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { plan } = options
      // A standby serves the Board read-only on the same address until it leads (ADR 0109).
      const epoch = yield* leadTheLedger(plan, (leader) => serveStandbyBoard(plan, leader))
      const ledger = Option.match(epoch, {
        onNone: () => ({ engine: "SQLite" as const, standby: false }),
        onSome: (e) => ({ engine: "PostgreSQL" as const, node: plan.node, leader: `${plan.node} (epoch ${e})`, standby: false })
      })
      const services = yield* Layer.build(DaemonLayer(plan, options.executor, ledger))
      const engine = Context.get(services, RunEngine)
      const board = Context.get(services, BoardServer)
      yield* onShutdownSignals(engine)
      const background = (name: string, loop: Effect.Effect<unknown, unknown, DaemonServices | FileSystem.FileSystem>) =>
        loop.pipe(
          Effect.catchAllCause((cause) => Effect.logError(`${name} stopped`, cause)),
          Effect.provide(services),
          Effect.forkScoped
        )
      yield* background("waking held runs", wakeHeldRuns)
      const triggers = Context.get(services, PollingTriggers)
      yield* background("polling", triggers.run)
      yield* background("schedules", Context.get(services, ScheduleTriggers).run)
      yield* background("the configuration watcher", watchConfig(plan.configFile))
      yield* background("notifications", notifyLoop)
      yield* background("write-back", writeBackLoop(plan.login, triggers.hint))
      for (const warning of trustWarnings(plan.config)) yield* Effect.logWarning(warning)
      yield* Effect.logInfo(`usine is up as ${plan.login}; the board is at ${board.origin}/`).pipe(
        Effect.annotateLogs({ board: `${board.origin}/`, ledger: shownLedger(plan.ledger) })
      )
      if (options.alongside !== undefined) yield* Effect.forkScoped(options.alongside(services, `${board.origin}/`))
      return yield* Effect.uninterruptible(
        engine.shutdownRequested.pipe(
          Effect.zipRight(engine.drain()),
          Effect.tap((end) =>
            Effect.logInfo(
              end === "Idle" ? "drained: every admitted attempt recorded its outcome; usine stops" : `drain ended (${end}); usine stops`
            )
          )
        )
      )
    })
  ).pipe(
    Effect.provide(LedgerWriteSecondsLayer),
    Effect.provide(DaemonTracing(options.plan.env, makeRedactor(options.plan.secrets).redact))
  )
