import { Effect, Layer } from "effect"
import { Executor } from "@usine/engine/Executor"
import * as WorkerExecutor from "@usine/executor/WorkerExecutor"
import { PullRequests } from "@usine/github/PullRequests"
import { Redactor } from "@usine/core/text/Redactor"
import { ConfigState } from "../ConfigState"
import { pathFrom, type StartupPlan } from "../daemon/StartupPlan"
import { makeWorkerPool, WorkerPool } from "@usine/executor/WorkerPool"

/** Where git clones `owner/name` from, next to the API: github.com, a GitHub Enterprise host, or the emulator. */
export const cloneUrlOf = (apiUrl: string) => (repository: string): string => {
  const api = new URL(apiUrl)
  const web = api.hostname === "api.github.com"
    ? "https://github.com"
    : `${api.protocol}//${api.host}${api.pathname.replace(/\/api\/v3\/?$/, "").replace(/\/+$/, "")}`
  return `${web}/${repository}.git`
}

/**
 * The real executor: each configured Worker on its transport (this machine, or an ssh host), pull requests through
 * the daemon's GitHub client, the daemon's redactor (built from `StartupPlan.secrets`, so it knows the Agents' keys).
 * Each Worker's root is locked at start; it is opened when first used; `~/` on an ssh Worker is that host's home.
 * The Workers follow a reload through the `WorkerPool` it also provides (ADR 0052): the executor reads them live,
 * and each Attempt is counted on its Worker so a removed one keeps its transport and lock until its last Attempt ends.
 */
export const WorkerExecutorLayer = (plan: StartupPlan) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const state = yield* ConfigState
      const redactor = yield* Redactor
      const { follow, pool, start, workers } = yield* makeWorkerPool({ configFile: plan.configFile, localRoot: (root) => pathFrom(plan.configFile, root) })
      yield* start(plan.config)
      const local = WorkerExecutor.layer({
        // Asked at each Attempt: an Agent added or changed by a reload is used from the next Attempt on.
        agent: (name) => state.unsafeGet().agents[name],
        workers,
        token: plan.token,
        identity: plan.commitIdentity,
        daemonEnv: plan.env,
        cloneUrl: cloneUrlOf(plan.config.github.apiUrl),
        redactor
      })
      const followed = Layer.effect(
        Executor,
        Effect.map(Executor, (inner) =>
          Executor.of({
            ...inner,
            execute: (request) =>
              follow(request.reattach ? request.attempt.worker ?? request.worker : request.worker, inner.execute(request))
          })
        )
      ).pipe(Layer.provide(local))
      return Layer.merge(followed, Layer.succeed(WorkerPool, pool))
    })
  ).pipe(Layer.provide(PullRequests.github))
