import { Data, Deferred, Effect, Exit, Option } from "effect"
import type { Run } from "@usine/core/run/Run"
import { LoopPolicies, type WorkerSpec } from "./LoopPolicies"

/** A reserved place on a Worker; it is released when the reserving scope closes. */
export interface Slot {
  readonly worker: string
}

/** No configured Worker may run this Run's Agent for its Loop: at preparation this becomes an AgentFailure. */
export class NoCapableWorker extends Data.TaggedError("NoCapableWorker")<{
  readonly runId: string
  readonly loop: string
  readonly agent: string
}> {
  override get message() {
    return `no Worker can run agent ${this.agent} for loop ${this.loop}`
  }
}

interface Waiter {
  readonly runId: string
  readonly receivedAt: number
  readonly eligible: ReadonlyArray<string>
  readonly deferred: Deferred.Deferred<Slot>
  granted: string | undefined
}

const byReceipt = (a: Waiter, b: Waiter): number =>
  a.receivedAt - b.receivedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)

/** Workers whose harnesses include the Run's Agent, among those its Loop allows. */
export const capableWorkers = (
  workers: ReadonlyArray<WorkerSpec>,
  run: Pick<Run, "agent">,
  allowed: ReadonlyArray<string> | undefined
): ReadonlyArray<string> =>
  workers.filter((w) => w.agents.includes(run.agent) && (allowed === undefined || allowed.includes(w.name))).map(
    (w) => w.name
  )

/**
 * Worker slots. One queue for every Loop and Worker, in order of Event receipt (ties by Run id): whenever a slot
 * frees or a reservation arrives, each waiter in that order takes a free slot on one of its capable Workers, so no
 * later Event overtakes an earlier one that could use the same Worker.
 */
export class StepExecutor extends Effect.Service<StepExecutor>()("usine/StepExecutor", {
  effect: Effect.gen(function*() {
    const policies = yield* LoopPolicies
    const capacity = new Map(policies.workers.map((w) => [w.name, w.maxConcurrentAttempts]))
    const inUse = new Map<string, number>(policies.workers.map((w) => [w.name, 0]))
    const waiting: Array<Waiter> = []

    const free = (worker: string) => (capacity.get(worker) ?? 0) - (inUse.get(worker) ?? 0)

    const serve = () => {
      for (let i = 0; i < waiting.length;) {
        const waiter = waiting[i]!
        let best: string | undefined
        for (const worker of waiter.eligible) {
          if (free(worker) > 0 && (best === undefined || free(worker) > free(best))) best = worker
        }
        if (best === undefined) {
          i++
          continue
        }
        inUse.set(best, (inUse.get(best) ?? 0) + 1)
        waiter.granted = best
        waiting.splice(i, 1)
        Deferred.unsafeDone(waiter.deferred, Exit.succeed({ worker: best }))
      }
    }

    const leave = (waiter: Waiter) =>
      Effect.sync(() => {
        if (waiter.granted !== undefined) {
          inUse.set(waiter.granted, (inUse.get(waiter.granted) ?? 1) - 1)
        } else {
          const index = waiting.indexOf(waiter)
          if (index >= 0) waiting.splice(index, 1)
        }
        serve()
      })

    /** Waits for a slot on a Worker that can run the Run; `prefer` pins a reattach to the Worker it ran on. */
    const reserve = Effect.fn("StepExecutor.reserve")(function*(
      run: Pick<Run, "id" | "loop" | "agent" | "receivedAt">,
      prefer?: string
    ) {
      const allowed = policies.loop(run.loop).pipe(Option.map((p) => p.workers), Option.getOrUndefined)
      const eligible = prefer !== undefined && capacity.has(prefer)
        ? [prefer]
        : capableWorkers(policies.workers, run, allowed)
      if (eligible.length === 0) {
        return yield* new NoCapableWorker({ runId: run.id, loop: run.loop, agent: run.agent })
      }
      const waiter: Waiter = {
        runId: run.id,
        receivedAt: run.receivedAt,
        eligible,
        deferred: yield* Deferred.make<Slot>(),
        granted: undefined
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => {
          waiting.push(waiter)
          waiting.sort(byReceipt)
          serve()
        }),
        () => leave(waiter)
      )
      return yield* Deferred.await(waiter.deferred)
    })

    /** Slots taken per Worker and reservations still waiting. */
    const usage = Effect.sync(() => ({
      inUse: Object.fromEntries(inUse) as Readonly<Record<string, number>>,
      waiting: waiting.map((w) => w.runId)
    }))

    return { reserve, usage } as const
  })
}) {}
