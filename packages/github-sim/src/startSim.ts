import { Cause, Context, Effect, Exit, Layer, Scope } from "effect"
import type { SimControl } from "./control/SimControl"
import { GitHubSim, type SimOptions } from "./GitHubSim"

/** `SimControl` with promises, for callers outside Effect. */
export type PromiseControl = {
  readonly [K in keyof SimControl]: SimControl[K] extends (...args: infer A) => Effect.Effect<infer R, infer _E, never>
    ? (...args: A) => Promise<R>
    : never
}

/** A running emulator for non-Effect callers (`usine sim`, tests driving the daemon as a process). */
export interface StartedSim {
  readonly url: string
  readonly dataDir: string
  readonly control: PromiseControl
  readonly authenticatedCloneUrl: (repo: string, token: string) => string
  /** Stops the server and removes the temporary data directory it created. */
  readonly close: () => Promise<void>
}

/** Resolves with the value, or rejects with the tagged error itself (not a FiberFailure wrapper). */
const run = async <A>(effect: Effect.Effect<A, unknown>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

/** Starts the emulator outside Effect; the promise edge over `GitHubSim.layer`. */
export const startSim = async (options: SimOptions = {}): Promise<StartedSim> => {
  const scope = Effect.runSync(Scope.make())
  const context = await run(Layer.buildWithScope(GitHubSim.layer(options), scope)).catch(async (error: unknown) => {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  })
  const sim = Context.get(context, GitHubSim)
  const control = Object.fromEntries(
    Object.entries(sim.control).map(([name, method]) => [
      name,
      (...args: ReadonlyArray<unknown>) => run((method as (...a: ReadonlyArray<unknown>) => Effect.Effect<unknown, unknown>)(...args))
    ])
  ) as PromiseControl
  return {
    url: sim.url,
    dataDir: sim.dataDir,
    control,
    authenticatedCloneUrl: sim.authenticatedCloneUrl,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
