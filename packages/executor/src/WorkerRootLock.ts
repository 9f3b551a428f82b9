import { Data, Effect, Option, type Scope } from "effect"
import { hostname } from "node:os"
import * as path from "node:path/posix"
import { requireProc, type WorkerNotLinux } from "./probeWorker"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"

/** Another usine daemon uses this Worker root: its recovery would stop the other's agents, so this one refuses. */
class WorkerRootLocked extends Data.TaggedError("WorkerRootLocked")<{
  readonly worker: string
  readonly host: string
  readonly root: string
  /** The holder's note: which usine process, on which machine, with which configuration. */
  readonly holder: string
}> {
  override get message() {
    return `the Worker ${this.worker}'s root ${this.root} on ${this.host} is in use by ${this.holder || "another process"}; ` +
      `only one usine daemon may use a Worker root: stop the other one, or give this Worker another root`
  }
}

/** The lock file of a Worker root; its content names the holder. */
export const rootLockFile = (root: string): string => path.join(root, ".usine.lock")

/** What this process writes into the lock file: enough for the operator to find it. */
export const holderNote = (configFile: string): string => `usine process ${process.pid} on ${hostname()} (${configFile})`

/**
 * Takes a Worker root for this daemon's life (ADR 0048): checks that the host is Linux (`/proc`, ADR 0014), then
 * holds `<root>/.usine.lock` through the Worker's transport, so it holds on an ssh Worker as well. The lock is a
 * kernel `flock` held by a host process tied to the daemon by a pipe: a dead daemon leaves no stale lock.
 */
export const acquireWorkerRootLock = (options: {
  readonly worker: string
  readonly transport: WorkerTransportShape
  readonly root: string
  readonly note: string
}): Effect.Effect<void, WorkerRootLocked | WorkerNotLinux | TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const { transport, root } = options
    yield* requireProc(transport, options.worker)
    yield* transport.makeDirectory(root)
    const holder = yield* transport.lockFile(rootLockFile(root), options.note)
    if (Option.isSome(holder)) {
      return yield* new WorkerRootLocked({ worker: options.worker, host: transport.host, root, holder: holder.value })
    }
  })
