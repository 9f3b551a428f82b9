import { Duration, Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { type BenchTarget, emitReport } from "./BenchReport"
import { cycleCost } from "./polling/cycleCost"
import { LOGIN, POLL_INTERVAL, pollingWorld, repositoryName, TOKEN } from "./polling/pollingWorld"
import { sizesFromArgs } from "./sizesFromArgs"

/** Issues per repository; 1% of them change between the measured cycles. */
const ITEMS = 100
const LABELED_EVERY = 10

type Cost = Effect.Effect.Success<typeof cycleCost>

const measure = (repositories: number) =>
  Effect.gen(function*() {
    const sim = yield* GitHubSim
    const control = sim.control
    yield* control.createUser({ login: LOGIN, token: TOKEN, permission: "write" })
    for (const resource of ["core", "graphql"] as const) {
      yield* control.setRateLimit({ login: LOGIN, resource, limit: 10_000_000 })
    }
    for (let r = 0; r < repositories; r++) {
      const [owner, name] = repositoryName(r).split("/") as [string, string]
      yield* control.createRepository({ owner, name })
    }
    // One issue a repository every 10 s of emulator time, so only the newest falls in the listing's 5 s overlap.
    for (let i = 1; i <= ITEMS; i++) {
      for (let r = 0; r < repositories; r++) {
        yield* control.createIssue({
          repo: repositoryName(r),
          title: `Issue ${i}`,
          body: `Body of issue ${i}.`,
          labels: i % LABELED_EVERY === 0 ? ["ready-for-agent"] : []
        })
      }
      yield* control.advanceTime({ ms: 10_000 })
    }
    const tick = control.advanceTime({ ms: Duration.toMillis(POLL_INTERVAL) })
    const cold = yield* cycleCost
    yield* tick
    const settle = yield* cycleCost
    yield* tick
    const idle = yield* cycleCost
    // 1% of the Items change: a new title on one labeled issue in every hundred.
    const changes = Math.max(1, Math.round((repositories * ITEMS) / 100))
    for (let c = 0; c < changes; c++) {
      const repo = repositoryName(c % repositories)
      const number = LABELED_EVERY * (1 + Math.floor(c / repositories))
      yield* control.updateIssue({ repo, number, title: `Issue ${number}, edited` })
    }
    yield* tick
    const changed = yield* cycleCost
    yield* tick
    const after = yield* cycleCost
    yield* tick
    const idleAgain = yield* cycleCost
    return { repositories, items: repositories * ITEMS, changes, cold, settle, idle, changed, after, idleAgain }
  }).pipe(Effect.orDie, Effect.provide(pollingWorld(repositories)), Effect.scoped)

const row = (repositories: number, phase: string, c: Cost) => [
  repositories, phase, c.requests, c.conditional, c.notModified, c.graphql, c.corePoints, c.graphqlPoints,
  c.corePoints + c.graphqlPoints, c.items, c.ms
]

const program = Effect.gen(function*() {
  const results = []
  for (const repositories of sizesFromArgs([1, 10, 100, 200])) {
    process.stderr.write(`polling: ${repositories} repositories\n`)
    results.push(yield* measure(repositories))
  }
  const idleTargets: Array<BenchTarget> = results.map((r) => ({
    name: `idle cycle, ${r.repositories} repositories`,
    target: `${r.repositories} conditional requests, 0 points`,
    measured: `${r.idle.requests} requests (${r.idle.notModified} answered 304), ${r.idle.corePoints + r.idle.graphqlPoints} points`,
    met: r.idle.requests === r.repositories && r.idle.notModified === r.repositories && r.idle.corePoints + r.idle.graphqlPoints === 0
  }))
  const smallest = results[0]!
  const routesOf = (cost: Cost) => Object.entries(cost.routes).map(([route, n]) => `${n} × ${route}`).join(", ")
  emitReport({
    bench: "polling",
    tables: [{
      title: `GitHub cost per polling cycle (${ITEMS} issues a repository, a Loop on one in ${LABELED_EVERY}; the emulator's request log and GET /rate_limit)`,
      columns: ["repositories", "cycle", "requests", "conditional", "304", "GraphQL", "core points", "GraphQL points", "points", "Items read", "cycle ms"],
      rows: results.flatMap((r) => [
        row(r.repositories, "cold (empty cursor)", r.cold),
        row(r.repositories, "second (no ETag yet)", r.settle),
        row(r.repositories, "idle", r.idle),
        row(r.repositories, `1% changed (${r.changes} Items)`, r.changed),
        row(r.repositories, "after the change", r.after),
        row(r.repositories, "idle again", r.idleAgain)
      ])
    }],
    targets: idleTargets,
    notes: [
      `requests of one cycle with ${smallest.repositories} repositories: idle: ${routesOf(smallest.idle)}; 1% changed: ${routesOf(smallest.changed)}; cold: ${routesOf(smallest.cold)}`,
      "the emulator runs in the bench's process on 127.0.0.1, so cycle ms includes answering the requests too",
      `between cycles the emulator's clock moves one poll_interval (${Duration.format(POLL_INTERVAL)}), past the listing's 5 s overlap`,
      "points = primary rate-limit points used: REST core (a 304 is free) plus GraphQL (the emulator charges 1 a query)"
    ]
  })
})

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
