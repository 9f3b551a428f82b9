import { Context, Effect, Either, Layer, Queue, Runtime } from "effect"
import { Counter, Histogram, type Metric, Registry } from "prom-client"
import { BoardSettings } from "@usine/board/BoardSettings"
import { type WorkerStatus, WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { HOLD_KINDS } from "@usine/core/brakes/HoldKind"
import { GitHubClient } from "@usine/github/GitHubClient"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { type Distribution, type Figure, LedgerFigures, type Spend } from "@usine/store/LedgerFigures"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import { LedgerWriteSeconds } from "./LedgerWriteSeconds"
import { zeroFilled } from "./zeroFilled"

/** How an Attempt ends: the outcome label of `usine_attempts_total`. */
const ATTEMPT_OUTCOMES = ["Succeeded", "Failed", "Canceled"] as const

/** Seconds: Attempts run from seconds to hours. */
const ATTEMPT_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200]
/** Seconds: a slot is usually free at once, or after another Attempt. */
const QUEUE_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 300, 900, 1800, 3600]
/** Seconds: a cycle is one conditional request a repository when idle. */
const POLL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

type Value = { readonly labels?: Record<string, string | number>; readonly value: number; readonly metricName?: string }

/** The registry `/metrics` renders; one per daemon. */
export class DaemonMetrics extends Context.Tag("usine/DaemonMetrics")<DaemonMetrics, Registry>() {}

const histogramValues = (name: string, d: Distribution): ReadonlyArray<Value> => [
  ...d.buckets.map((b) => ({ metricName: `${name}_bucket`, labels: { le: b.le }, value: b.count })),
  { metricName: `${name}_bucket`, labels: { le: "+Inf" }, value: d.count },
  { metricName: `${name}_sum`, value: d.sum },
  { metricName: `${name}_count`, value: d.count }
]

const labelled = <L extends string>(figures: ReadonlyArray<Figure<L>>): ReadonlyArray<Value> =>
  figures.map((f) => ({ labels: { ...f.labels }, value: f.value }))

/**
 * Prometheus metrics (ADR 0060) through prom-client, with no code in the engine: gauges and counters over the ledger
 * are read from it at scrape time (`LedgerFigures`), GitHub's from the client's rate budget, Workers from the Workers
 * feed, poll cycles from the reports polling already publishes, and ledger transactions from the store's timing hook.
 * Every configured Loop's Run states, Attempt outcomes and spend, and every brake kind, show 0 before they count anything.
 */
export const DaemonMetricsLayer: Layer.Layer<DaemonMetrics, never, LedgerFigures | GitHubClient | PollingTriggers | WorkerStatusFeed | LedgerWriteSeconds | BoardSettings> =
  Layer.scoped(
    DaemonMetrics,
    Effect.gen(function* () {
      const figures = yield* LedgerFigures
      const client = yield* GitHubClient
      const workers = yield* WorkerStatusFeed
      const settings = yield* BoardSettings
      /** The configured Loops, as the config stands at the scrape. */
      const loops = () => settings.current().loops
      const run = Runtime.runPromise(yield* Effect.runtime<never>())
      const registry = new Registry()
      registry.registerMetric(yield* LedgerWriteSeconds)

      /** A metric whose values are read when scraped. */
      const scraped = (name: string, help: string, type: "gauge" | "counter" | "histogram", read: Effect.Effect<ReadonlyArray<Value>>) =>
        registry.registerMetric({
          name,
          help,
          type,
          get: async () => ({ name, help, type, aggregator: "sum", values: [...(await run(read))] })
        } as unknown as Metric)

      scraped("usine_runs", "Runs in the ledger by Loop and state.", "gauge", Effect.map(figures.runs, (runs) =>
        labelled(zeroFilled(loops().flatMap((l) => RUN_STATE_TAGS.map((state) => ({ loop: l.name, state }))), runs))))
      scraped("usine_attempts_total", "Ended Attempts by Loop and outcome.", "counter", Effect.map(figures.attempts, (attempts) =>
        labelled(zeroFilled(loops().flatMap((l) => ATTEMPT_OUTCOMES.map((outcome) => ({ loop: l.name, outcome }))), attempts))))
      const histogram = (name: string, help: string, read: Effect.Effect<Distribution>) =>
        scraped(name, help, "histogram", Effect.map(read, (d) => histogramValues(name, d)))
      histogram("usine_attempt_duration_seconds", "How long ended Attempts ran.", figures.attemptSeconds(ATTEMPT_BUCKETS))
      histogram("usine_queue_wait_seconds", "How long Runs waited in Queued for a Worker slot.", figures.queueWaitSeconds(QUEUE_BUCKETS))
      /** The spend rows, with a zero row for each configured Loop and its Agent that has spent nothing yet. */
      const withUnspent = (spent: ReadonlyArray<Spend>) => [
        ...spent,
        ...loops()
          .filter((l) => !spent.some((s) => s.loop === l.name && s.agent === l.agent))
          .map((l) => ({ loop: l.name, agent: l.agent, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 }))
      ]
      const spend = (pick: (s: { inputTokens: number; outputTokens: number; cachedInputTokens: number; costUsd: number }) => ReadonlyArray<Value>) =>
        Effect.map(figures.spend, (spent) => withUnspent(spent).flatMap((s) => pick(s).map((v) => ({ ...v, labels: { loop: s.loop, agent: s.agent, ...v.labels } }))))
      scraped("usine_tokens_total", "Tokens Agents used, by Loop, Agent and kind.", "counter", spend((s) => [
        { labels: { kind: "input" }, value: s.inputTokens },
        { labels: { kind: "output" }, value: s.outputTokens },
        { labels: { kind: "cached_input" }, value: s.cachedInputTokens }
      ]))
      scraped("usine_cost_usd_total", "What Agents cost, in US dollars, by Loop and Agent.", "counter", spend((s) => [{ value: s.costUsd }]))
      scraped("usine_runs_held", "Open Runs held by a brake, by its kind.", "gauge", Effect.map(figures.brakes, (b) =>
        labelled(zeroFilled(HOLD_KINDS.map((kind) => ({ kind })), b.held))))
      scraped("usine_agent_quota_holds", "Agents whose provider quota holds their new Attempts.", "gauge", Effect.map(figures.brakes, (b) => [{ value: b.agentHolds }]))
      scraped("usine_github_requests_total", "GitHub requests by the status answered.", "counter", Effect.map(client.budget, (b) =>
        Object.entries(b.byStatus).map(([status, value]) => ({ labels: { status }, value }))
      ))
      scraped("usine_github_rate_remaining", "GitHub's remaining rate quota per resource, as last reported.", "gauge", Effect.map(client.budget, (b) =>
        (["core", "graphql"] as const).flatMap((resource) => {
          const remaining = b[resource].remaining
          return remaining === undefined ? [] : [{ labels: { resource }, value: remaining }]
        })
      ))
      const perWorker = (pick: (w: WorkerStatus) => number) =>
        Effect.map(workers.workers, (ws) => ws.map((w) => ({ labels: { worker: w.name }, value: pick(w) })))
      scraped("usine_worker_up", "1 when the Worker is reachable.", "gauge", perWorker((w) => (w.health === "unreachable" ? 0 : 1)))
      scraped("usine_worker_slots_used", "Worker slots taken by Attempts.", "gauge", perWorker((w) => w.slotsUsed))
      scraped("usine_worker_slots", "Worker slots configured.", "gauge", perWorker((w) => w.slotsMax))

      const cycleSeconds = new Histogram({ name: "usine_poll_cycle_duration_seconds", help: "How long a poll cycle over every repository took.", buckets: POLL_BUCKETS, registers: [registry] })
      const pollFailures = new Counter({ name: "usine_poll_failures_total", help: "Repository polls that failed, by repository.", labelNames: ["repository"], registers: [registry] })
      const cycles = yield* (yield* PollingTriggers).cycles
      yield* Effect.forkScoped(Effect.forever(Effect.map(Queue.take(cycles), (report) => {
        cycleSeconds.observe((report.finishedAt - report.startedAt) / 1000)
        for (const { repository, result } of report.repositories) if (Either.isLeft(result)) pollFailures.inc({ repository })
      })))
      return registry
    })
  )
