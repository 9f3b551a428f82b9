import { Data, Deferred, Effect, Exit, Option } from "effect"
import type { RunId } from "@usine/core/ids/RunId"
import type { Run } from "@usine/core/run/Run"
import { LoopPolicies, type WorkerSpec } from "./LoopPolicies"

/** A reserved place on a Worker; it is released when the reserving scope closes. */
export interface Slot {
  readonly worker: string
}

/** A slot granted to a queued request: whoever receives it gives it back with `release`, which runs once. */
export interface HeldSlot extends Slot {
  readonly release: () => void
}

/** Where a request for a slot stands: granted at once, or queued until `onGrant` is called with the slot. */
type SlotPlace =
  | { readonly _tag: "Granted"; readonly slot: HeldSlot }
  | { readonly _tag: "Queued" }

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
  readonly runId: RunId
  readonly receivedAt: number
  readonly run: SlotRun
  readonly prefer: string | undefined
  /** Worked out again when the Workers change (`setWorkers`). */
  eligible: ReadonlyArray<string>
  /** Called once, from whichever fiber freed the slot; undefined while the request is being placed. */
  onGrant: ((slot: HeldSlot) => void) | undefined
  granted: HeldSlot | undefined
}

type SlotRun = Pick<Run, "id" | "loop" | "agent" | "receivedAt">

const byReceipt = (a: Waiter, b: Waiter): number =>
  a.receivedAt - b.receivedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)

/** Workers whose harnesses include the Run's Agent, among those its Loop allows. */
const capableWorkers = (
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
 * later Event overtakes an earlier one that could use the same Worker. A waiter is plain data, not a fiber: the
 * driver queues a Run with `request` and forks its fiber when the slot is granted (ADR 0046).
 */
export class WorkerSlots extends Effect.Service<WorkerSlots>()("usine/WorkerSlots", {
  effect: Effect.gen(function*() {
    const policies = yield* LoopPolicies
    // The Workers in force: those of the policies at start, then each set given to `setWorkers` (a reload).
    let workers = policies.workers()
    let capacity = new Map(workers.map((w) => [w.name, w.maxConcurrentAttempts]))
    const inUse = new Map<string, number>(workers.map((w) => [w.name, 0]))
    const waiting: Array<Waiter> = []
    /** The waiting request of each Run, for the driver's look-ups. */
    const byRun = new Map<string, Waiter>()
    const forget = (waiter: Waiter) => {
      if (byRun.get(waiter.runId) === waiter) byRun.delete(waiter.runId)
    }

    const free = (worker: string) => (capacity.get(worker) ?? 0) - (inUse.get(worker) ?? 0)

    const hold = (worker: string): HeldSlot => {
      let held = true
      inUse.set(worker, (inUse.get(worker) ?? 0) + 1)
      return {
        worker,
        release: () => {
          if (!held) return
          held = false
          const used = (inUse.get(worker) ?? 1) - 1
          if (used === 0 && !capacity.has(worker)) inUse.delete(worker)
          else inUse.set(worker, used)
          serve()
        }
      }
    }

    const serve = (): void => {
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
        const slot = hold(best)
        waiter.granted = slot
        waiting.splice(i, 1)
        forget(waiter)
        // The receiver may release at once, serving the queue within this call: walk again from the start after it.
        if (waiter.onGrant !== undefined) {
          const grant = waiter.onGrant
          waiter.onGrant = undefined
          grant(slot)
          i = 0
        }
      }
    }

    const eligibleFor = (run: SlotRun, prefer: string | undefined) => {
      const allowed = policies.loop(run.loop).pipe(Option.map((p) => p.workers), Option.getOrUndefined)
      return prefer !== undefined && capacity.has(prefer) ? [prefer] : capableWorkers(workers, run, allowed)
    }

    const enqueue = (run: SlotRun, prefer: string | undefined, onGrant: (slot: HeldSlot) => void, occupied = false) =>
      Effect.suspend((): Effect.Effect<{ readonly place: SlotPlace; readonly waiter: Waiter }, NoCapableWorker> => {
        const eligible = eligibleFor(run, prefer)
        if (eligible.length === 0) return new NoCapableWorker({ runId: run.id, loop: run.loop, agent: run.agent })
        const waiter: Waiter = {
          runId: run.id,
          receivedAt: run.receivedAt,
          // Only what `eligibleFor` reads, so a queued request keeps no whole Run alive (ADR 0046).
          run: { id: run.id, loop: run.loop, agent: run.agent, receivedAt: run.receivedAt },
          prefer,
          eligible,
          onGrant: undefined,
          granted: undefined
        }
        // A live session already runs on its Worker: following it takes nothing more there, so it is granted at once,
        // over the capacity if need be (new work then waits until usage is under it again).
        if (occupied && prefer !== undefined && capacity.has(prefer)) {
          return Effect.succeed({ place: { _tag: "Granted", slot: hold(prefer) }, waiter })
        }
        let at = waiting.length
        while (at > 0 && byReceipt(waiting[at - 1]!, waiter) > 0) at--
        waiting.splice(at, 0, waiter)
        byRun.set(waiter.runId, waiter)
        serve()
        if (waiter.granted !== undefined) return Effect.succeed({ place: { _tag: "Granted", slot: waiter.granted }, waiter })
        waiter.onGrant = onGrant
        return Effect.succeed({ place: { _tag: "Queued" }, waiter })
      })

    const leave = (waiter: Waiter) => {
      const index = waiting.indexOf(waiter)
      if (index < 0) return false
      waiting.splice(index, 1)
      forget(waiter)
      serve()
      return true
    }

    /**
     * Takes a free slot for the Run now, or queues it: `onGrant` is then called once with the slot, synchronously
     * from the fiber that freed it. `prefer` pins a reattach to the Worker it ran on; `occupied` says the Run's
     * session still runs there (a restart, a takeover), so its slot is granted at once: a reattach never waits behind
     * new work while its agent runs on unwatched (ADR 0110).
     */
    const request = (run: SlotRun, prefer: string | undefined, onGrant: (slot: HeldSlot) => void, occupied = false) =>
      Effect.map(enqueue(run, prefer, onGrant, occupied), ({ place }) => place)

    /** Takes the Run's queued request out of the queue; false when none waits (already granted, or never queued). */
    const withdraw = (runId: string) =>
      Effect.sync(() => {
        const waiter = byRun.get(runId)
        return waiter !== undefined && waiter.onGrant !== undefined && leave(waiter)
      })

    /** Takes every queued request out of the queue (the drain): nothing is granted to them any more. */
    const withdrawAll = Effect.sync(() => {
      waiting.splice(0, waiting.length)
      byRun.clear()
    })

    /** Waits in this fiber for a slot on a Worker that can run the Run; the slot is released when the scope closes. */
    const reserve = Effect.fn("WorkerSlots.reserve")(function*(
      run: SlotRun,
      prefer?: string
    ) {
      const granted = yield* Deferred.make<HeldSlot>()
      const { place } = yield* Effect.acquireRelease(
        enqueue(run, prefer, (slot) => Deferred.unsafeDone(granted, Exit.succeed(slot))),
        ({ place, waiter }) =>
          Effect.sync(() => {
            if (place._tag === "Granted") return place.slot.release()
            if (waiter.granted !== undefined) return waiter.granted.release()
            leave(waiter)
          })
      )
      const slot = place._tag === "Granted" ? place.slot : yield* Deferred.await(granted)
      return { worker: slot.worker } satisfies Slot
    })

    /**
     * Puts another set of Workers in force (a reload, ADR 0052): each Worker's capacity becomes its new
     * `maxConcurrentAttempts`, and the queue is walked again at once. A Worker left out grants no new slot; the slots
     * held on it stay counted until they are released. A lowered capacity grants nothing until usage is under it. A
     * queued request that no Worker in force can serve waits for a later set.
     */
    const setWorkers = (next: ReadonlyArray<WorkerSpec>) =>
      Effect.sync(() => {
        workers = next
        capacity = new Map(next.map((w) => [w.name, w.maxConcurrentAttempts]))
        for (const w of next) if (!inUse.has(w.name)) inUse.set(w.name, 0)
        for (const [name, used] of inUse) if (used === 0 && !capacity.has(name)) inUse.delete(name)
        for (const waiter of waiting) waiter.eligible = eligibleFor(waiter.run, waiter.prefer)
        serve()
      })

    /** Slots taken per Worker and reservations still waiting. */
    const usage = Effect.sync(() => ({
      inUse: Object.fromEntries(inUse) as Readonly<Record<string, number>>,
      waiting: waiting.map((w) => w.runId)
    }))

    /** Whether the Run has a request in the queue. */
    const isQueued = (runId: string) => byRun.has(runId)

    return { request, withdraw, withdrawAll, reserve, setWorkers, usage, isQueued } as const
  })
}) {}
