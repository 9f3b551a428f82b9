import { Data, Deferred, Effect, Either, Schedule, type Scope } from "effect"
import type { OpenReverseForward, ReverseForwardFailed } from "../ReverseForward"

/**
 * How a tunnel is opened, and reopened after it closed: 6 tries, 0.5 s doubling apart, about 15 s in all. A reattach
 * asks again for the port an earlier daemon's tunnel held, which its host frees once that tunnel's connection ends.
 */
const tunnelRetryPolicy: Schedule.Schedule<unknown> = Schedule.exponential("500 millis").pipe(Schedule.intersect(Schedule.recurs(5)))

/** The tunnel to the model proxy closed and could not be had again: the agent is cut off from its model. */
export class ModelTunnelLost extends Data.TaggedError("ModelTunnelLost")<{
  readonly host: string
  readonly remotePort: number
  readonly detail: string
}> {
  override get message() {
    return `the tunnel from ${this.host} to usine's model proxy closed and could not be reopened on 127.0.0.1:${this.remotePort} there: ${this.detail}`
  }
}

/**
 * A model proxy's tunnel to a Worker on another host (ADR 0097), for the scope: opened at `remotePort` when given
 * (the port a running CLI points at), else at a free one; reopened on the same port whenever it closes. `lost` fails
 * once a reopening has failed all its tries; it never completes otherwise.
 */
export const proxyTunnel = (options: {
  readonly host: string
  readonly forward: OpenReverseForward
  readonly port: number
  readonly remotePort: number | undefined
  readonly retryPolicy?: Schedule.Schedule<unknown>
}): Effect.Effect<{ readonly remotePort: number; readonly lost: Effect.Effect<never, ModelTunnelLost> }, ReverseForwardFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const opened = yield* Deferred.make<number, ReverseForwardFailed>()
    const lost = yield* Deferred.make<never, ModelTunnelLost>()
    const open = (remotePort: number | undefined) =>
      options.forward({ port: options.port, remotePort }).pipe(Effect.retry(options.retryPolicy ?? tunnelRetryPolicy))
    const hold = Effect.gen(function* () {
      let remotePort = options.remotePort
      for (;;) {
        const ended = yield* Effect.scoped(Effect.gen(function* () {
          const forward = yield* open(remotePort)
          remotePort = forward.remotePort
          yield* Deferred.succeed(opened, forward.remotePort)
          return yield* forward.closed
        })).pipe(Effect.either)
        if (Either.isLeft(ended)) {
          // Never opened: the caller fails. Opened once: the port is known, and the Attempt is cut off from its model.
          if (!(yield* Deferred.isDone(opened))) return yield* Deferred.fail(opened, ended.left)
          return yield* Deferred.fail(lost, new ModelTunnelLost({ host: options.host, remotePort: remotePort ?? 0, detail: ended.left.detail }))
        }
        yield* Effect.logWarning("the tunnel to the model proxy closed; it is reopened on the same port").pipe(
          Effect.annotateLogs({ host: options.host, remotePort, why: ended.right })
        )
      }
    })
    yield* Effect.forkScoped(hold)
    const remotePort = yield* Deferred.await(opened)
    return { remotePort, lost: Deferred.await(lost) }
  })
