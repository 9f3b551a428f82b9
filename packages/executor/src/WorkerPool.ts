import { Context, Effect, ExecutionStrategy, Exit, Scope } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import type { WorkerConfig, WorkerSandbox } from "@usine/core/config/WorkerConfig"
import * as LocalTransport from "./LocalTransport"
import type { WorkerDirectory, WorkerEntry } from "./WorkerDirectory"
import { probeSandbox, SandboxUnavailable } from "./Sandbox"
import type { ConfinementSettings } from "./Sandbox/Confinement"
import * as SshTransport from "./SshTransport"
import type { WorkerTransportShape } from "./WorkerTransport"
import { acquireWorkerRootLock, holderNote } from "./WorkerRootLock"

/** Where the app's Workers come from: usine.yaml (named in each root lock) and how a local root is resolved. */
interface WorkerPlace {
  readonly configFile: string
  /** A local Worker's `root` as an absolute path (relative to usine.yaml, `~/` the user's home). */
  readonly localRoot: (root: string) => string
}

/** What a reload did to the Workers: the names now in force, and one line per Worker that could not be opened. */
interface WorkersReconciled {
  readonly inForce: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
}

/**
 * The Workers the executor runs on, opened by the app (transport, `/proc` probe, root lock) and changed by a reload
 * (ADR 0052). Only the app's `WorkerExecutorLayer` provides it; a daemon wired with another executor has none.
 */
export class WorkerPool extends Context.Tag("usine/WorkerPool")<
  WorkerPool,
  {
    /** Opens the Workers the configuration adds, retires those it removes or changes; never fails. */
    readonly reconcile: (config: UsineConfig) => Effect.Effect<WorkersReconciled>
  }
>() {}

interface Entry extends WorkerEntry {
  readonly name: string
  /** Changed in place by a reload: the next Attempt on it is confined (or not) accordingly. */
  sandbox: WorkerSandbox
  /** Changed in place by a reload too. */
  confinement: ConfinementSettings
  /** What makes it the same Worker: a change of type, host or root replaces it. */
  readonly identity: string
  readonly scope: Scope.CloseableScope
  /** Attempts the executor follows on it now. */
  active: number
  retired: boolean
}

const confinementOf = (worker: WorkerConfig): ConfinementSettings => ({ sandboxUid: worker.sandboxUid, limits: worker.limits })

const identityOf = (worker: WorkerConfig) => JSON.stringify([worker.type, worker.host ?? null, worker.root])

/**
 * Takes the Worker root (ADR 0048), before the engine's recovery walks it: a second daemon on the same root refuses.
 * An unreachable ssh Worker is left unlocked, with a warning (its Attempts fail until it is back).
 */
const lockRoot = (place: WorkerPlace, name: string, worker: { readonly transport: WorkerTransportShape; readonly root: string }) =>
  acquireWorkerRootLock({ worker: name, transport: worker.transport, root: worker.root, note: holderNote(place.configFile) }).pipe(
    Effect.catchTag("WorkerUnreachable", (error) =>
      Effect.logWarning("a Worker could not be reached to lock its root; it runs unlocked").pipe(
        Effect.annotateLogs({ worker: name, error: error.message })
      )
    )
  )

/**
 * Says at every start how the Worker confines its agents (ADR 0054): `sandbox: none` is warned about; a Worker whose
 * host cannot run the sandbox is reported in one line saying what to do, and its Attempts are refused (the probe
 * before each one says the same). An unreachable Worker is reported when it is first used.
 */
const announceSandbox = (name: string, sandbox: WorkerSandbox, transport: WorkerTransportShape) =>
  sandbox === "none"
    ? Effect.logWarning(
        `workers.${name} has sandbox: none: its agents and verify commands run unconfined, as the daemon's user, and can read what it can (its config, token file, ledger, other Attempts)`
      ).pipe(Effect.annotateLogs({ worker: name }))
    : probeSandbox(transport).pipe(
        Effect.flatMap((unavailable) =>
          unavailable === undefined
            ? Effect.void
            : Effect.logError(
                `${new SandboxUnavailable({ worker: name, host: transport.host, detail: unavailable }).message}; until then its Attempts are refused`
              ).pipe(Effect.annotateLogs({ worker: name }))
        ),
        Effect.catchAll(() => Effect.void)
      )

/**
 * Opens each configured Worker in a scope of its own, forked from the caller's: its transport (an ssh Worker's
 * control connection) and its root lock last until it is retired and no Attempt runs on it any more, or the caller's
 * scope closes. `workers` is the directory the executor asks: the Workers in force, and a retired one under its
 * name until its last Attempt ends (unless a Worker in force took the name). `follow` counts an Attempt on a Worker
 * while it runs.
 */
export const makeWorkerPool = (place: WorkerPlace) =>
  Effect.gen(function* () {
    const parent = yield* Effect.scope
    const current = new Map<string, Entry>()
    const retiring = new Set<Entry>()

    const open = (name: string, worker: WorkerConfig) =>
      Effect.gen(function* () {
        const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
        const opened = yield* Effect.gen(function* () {
          const transport = worker.type === "ssh"
            ? yield* SshTransport.make({ destination: worker.host ?? name })
            : LocalTransport.make()
          const root = worker.type === "ssh" ? worker.root.replace(/^~\//, "") : place.localRoot(worker.root)
          yield* lockRoot(place, name, { transport, root })
          yield* announceSandbox(name, worker.sandbox, transport)
          return { transport, root }
        }).pipe(Scope.extend(scope), Effect.onError(() => Scope.close(scope, Exit.void)))
        const entry: Entry = { ...opened, name, sandbox: worker.sandbox, confinement: confinementOf(worker), identity: identityOf(worker), scope, active: 0, retired: false }
        current.set(name, entry)
        return entry
      })

    const closeIfIdle = (entry: Entry) =>
      entry.retired && entry.active === 0
        ? Effect.suspend(() => {
            retiring.delete(entry)
            return Scope.close(entry.scope, Exit.void)
          }).pipe(
            Effect.zipRight(Effect.logInfo("a removed Worker has no Attempt left: its root is released")),
            Effect.annotateLogs({ worker: entry.name, root: entry.root })
          )
        : Effect.void

    const retire = (entry: Entry) =>
      Effect.suspend(() => {
        current.delete(entry.name)
        entry.retired = true
        retiring.add(entry)
        return closeIfIdle(entry)
      })

    const lookup = (name: string): Entry | undefined => {
      const inForce = current.get(name)
      if (inForce !== undefined) return inForce
      for (const entry of retiring) if (entry.name === name) return entry
      return undefined
    }

    const workers: WorkerDirectory = {
      get: lookup,
      names: () => [...new Set([...current.keys(), ...[...retiring].map((e) => e.name)])]
    }

    const follow = <A, E, R>(name: string, attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const entry = lookup(name)
          if (entry !== undefined) entry.active++
          return entry
        }),
        () => attempt,
        (entry) =>
          entry === undefined ? Effect.void : Effect.suspend(() => {
            entry.active--
            return closeIfIdle(entry)
          })
      )

    const reconcile = Effect.fn("WorkerPool.reconcile")(function* (config: UsineConfig) {
      for (const entry of [...current.values()]) {
        const next = config.workers[entry.name]
        if (next !== undefined && identityOf(next) === entry.identity) {
          entry.confinement = confinementOf(next)
          if (next.sandbox !== entry.sandbox) {
            entry.sandbox = next.sandbox
            yield* announceSandbox(entry.name, next.sandbox, entry.transport)
          }
          continue
        }
        yield* Effect.logInfo(
          next === undefined
            ? "Worker removed: it takes no new Attempt; those running on it finish"
            : "Worker changed type, host or root: the old one is removed (its running Attempts finish) and the new one added"
        ).pipe(Effect.annotateLogs({ worker: entry.name, running: entry.active }))
        yield* retire(entry)
      }
      const problems: Array<string> = []
      for (const [name, worker] of Object.entries(config.workers)) {
        if (current.has(name)) continue
        yield* open(name, worker).pipe(
          Effect.tap(() => Effect.logInfo("Worker added").pipe(Effect.annotateLogs({ worker: name }))),
          Effect.catchAll((error) => Effect.sync(() => problems.push(`workers.${name}: the Worker could not be opened: ${error.message}`)))
        )
      }
      return { inForce: [...current.keys()], problems }
    })

    /** Opens the Workers of the configuration the daemon starts with; any failure fails the start. */
    const start = (config: UsineConfig) =>
      Effect.forEach(Object.entries(config.workers), ([name, worker]) => open(name, worker), { discard: true })

    return { workers, follow, start, pool: WorkerPool.of({ reconcile }) }
  })
