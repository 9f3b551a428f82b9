import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { TOKEN } from "./pollingWorld"

interface Used {
  readonly core: number
  readonly graphql: number
}

/** Points used so far on each primary budget, from the emulator's uncharged GET /rate_limit. */
const used = Effect.gen(function*() {
  const sim = yield* GitHubSim
  const body = yield* Effect.promise(() =>
    fetch(`${sim.url}/rate_limit`, { headers: { authorization: `token ${TOKEN}` } }).then((r) => r.json())
  ) as Effect.Effect<{ resources: { core: { used: number }; graphql: { used: number } } }>
  return { core: body.resources.core.used, graphql: body.resources.graphql.used } satisfies Used
})

/** One polling cycle over every repository and what it cost, from the emulator's request log and rate budgets. */
export const cycleCost = Effect.gen(function*() {
  const sim = yield* GitHubSim
  const triggers = yield* PollingTriggers
  yield* Effect.orDie(sim.control.clearRequestLog())
  const before = yield* used
  const started = performance.now()
  const report = yield* triggers.pollOnce()
  const ms = performance.now() - started
  const after = yield* used
  const log = (yield* Effect.orDie(sim.control.requestLog())).filter((r) => r.path !== "/rate_limit")
  const failed = report.repositories.filter((r) => r.result._tag === "Left").length
  if (failed > 0) return yield* Effect.dieMessage(`${failed} repositories failed to poll`)
  const routes: Record<string, number> = {}
  for (const r of log) {
    const route = `${r.method} ${r.path.split("?")[0]!.replace(/\/repo-\d+\//, "/{repo}/").replace(/\/\d+(?=\/|$)/g, "/{n}")} ${r.status}`
    routes[route] = (routes[route] ?? 0) + 1
  }
  return {
    routes,
    requests: log.length,
    conditional: log.filter((r) => r.conditional).length,
    notModified: log.filter((r) => r.status === 304).length,
    graphql: log.filter((r) => r.path.startsWith("/graphql")).length,
    corePoints: after.core - before.core,
    graphqlPoints: after.graphql - before.graphql,
    items: report.repositories.reduce((n, r) => n + (r.result._tag === "Right" ? r.result.right.items.length : 0), 0),
    ms
  }
})
