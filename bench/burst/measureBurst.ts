import { writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import type { StartedSim } from "@usine/github-sim/startSim"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { benchSim, freePort, LABEL, SAMPLE_REPOSITORY, usineYaml } from "../throughput/benchWorld"
import { SOURCE_USINE, startDaemon } from "../throughput/DaemonProcess"
import { openLikeLedger } from "../BareSqlite"
import { type ProcSample, procSample } from "../throughput/procSample"
import { pullHeads } from "../throughput/pullRequestPacing"
import { burstTimeline } from "./burstTimeline"

const OWNER = "burst"
export const REPOSITORIES = 5
export const SLOTS = 8
/** Long enough for the bench to label every Item between two polls, so the burst lands in one cycle. */
export const POLL_SECONDS = 30

const load1 = () => loadavg()[0] ?? 0

/** The daemon user's REST and GraphQL use so far, as `GET /rate_limit` reports it (a read GitHub does not charge). */
const rateUsed = (sim: StartedSim, token: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.url}/rate_limit`, { headers: { authorization: `token ${token}` } })
    const body = (await response.json()) as { readonly resources: Record<"core" | "graphql", { readonly used: number }> }
    return { core: body.resources.core.used, graphql: body.resources.graphql.used }
  })

/**
 * One row: `usine up` against a fresh emulator whose REPOSITORIES repositories hold `items` open issues without the
 * Loop's label. Once the daemon has polled, the bench labels every issue (spread over the repositories) before the
 * next poll, then waits until every Run is open (or `openBudgetMs` has passed since the labels) and until every pull
 * request is open (or `pullBudgetMs` has passed); then SIGTERM, and the ledger and the emulator's log are read.
 * `usine` is the command that runs usine: the sources unless an installed package's bin is given (issue 34).
 */
export const measureBurst = (items: number, pullBudgetMs: number, openBudgetMs: number, usine: ReadonlyArray<string> = SOURCE_USINE) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir("usine-bench-burst-")
    const { sim, token } = yield* benchSim
    const repositories = Array.from({ length: REPOSITORIES }, (_, r) => `${OWNER}/repo-${r}`)
    const issues: Array<{ readonly repo: string; readonly number: number }> = []
    yield* Effect.promise(async () => {
      for (const repo of repositories) await sim.control.createRepository({ owner: OWNER, name: repo.split("/")[1]!, seedDirectory: SAMPLE_REPOSITORY })
      for (let i = 0; i < items; i++) {
        const repo = repositories[i % REPOSITORIES]!
        const issue = await sim.control.createIssue({ repo, title: `Burst item ${i + 1}`, body: `Change item ${i + 1}.`, labels: [] })
        issues.push({ repo, number: issue.number })
      }
    })
    const yaml = usineYaml({
      apiUrl: sim.url, token, repository: repositories.join(", "), boardPort: yield* freePort, workspaces: join(dir, "workspaces"), slots: SLOTS
    }).replace("poll_interval: 1s", `poll_interval: ${POLL_SECONDS}s`)
    writeFileSync(join(dir, "usine.yaml"), yaml)
    const loadBefore = load1()
    const daemon = yield* startDaemon(dir, usine)
    yield* daemon.waitFor(/msg="usine is up as /)
    // The first poll has read every repository's issues once it has listed the last one.
    const issueLists = () =>
      Effect.map(Effect.promise(() => sim.control.requestLog()), (log) =>
        new Set(log.filter((r) => r.method === "GET" && /^\/repos\/[^/]+\/[^/]+\/issues\?/.test(r.path)).map((r) => r.path.split("/")[3])).size)
    while ((yield* issueLists()) < REPOSITORIES) yield* Effect.sleep("100 millis")
    // The next poll starts POLL_SECONDS after this one ends: the labels go on just before it, so they land in one cycle
    // and the wait for the poll is a few seconds, not the whole interval.
    const labelEstimateMs = 2000 + items * 2
    yield* Effect.sleep(Math.max(1000, POLL_SECONDS * 1000 - labelEstimateMs - 6000))
    const atLabel = procSample(daemon.pid)
    const usedBefore = yield* rateUsed(sim, token)
    const logBefore = (yield* Effect.promise(() => sim.control.requestLog())).length
    const labelledAt = new Map<string, number>()
    const labelStart = Date.now()
    yield* Effect.promise(async () => {
      for (const { repo, number } of issues) {
        await sim.control.addLabels({ repo, number, labels: [LABEL] })
        labelledAt.set(itemKeyOf(repo, number), Date.now())
      }
    })
    const labelEnd = Date.now()
    const pullsSoFar = () =>
      Effect.map(Effect.promise(() => sim.control.requestLog()), (log) =>
        log.filter((r) => r.method === "POST" && /^\/repos\/[^/]+\/[^/]+\/pulls$/.test(r.path) && r.status === 201).length)
    // The ledger in WAL mode: a reader beside the daemon sees its committed Runs and never blocks its writes.
    const ledger = yield* Effect.acquireRelease(
      Effect.sync(() => openLikeLedger(join(dir, "state", "ledger.db"))),
      (db) => Effect.sync(() => db.close())
    )
    const runCount = ledger.prepare("SELECT count(*) AS n FROM usine_runs")
    let allOpen: { readonly at: number; readonly sample: ProcSample | undefined } | undefined
    let peakRssMb = atLabel?.peakRssMb ?? 0
    const loads = [load1()]
    let pulls = 0
    const elapsed = () => Date.now() - labelStart
    while ((allOpen === undefined && elapsed() < openBudgetMs) || (pulls < items && elapsed() < pullBudgetMs)) {
      yield* Effect.sleep("1 second")
      if (allOpen === undefined && (runCount.get() as { n: number }).n >= items) allOpen = { at: Date.now(), sample: procSample(daemon.pid) }
      pulls = yield* pullsSoFar()
      const sample = procSample(daemon.pid)
      if (sample !== undefined) peakRssMb = Math.max(peakRssMb, sample.peakRssMb)
      if (loads.length < (Date.now() - labelStart) / 5000) loads.push(load1())
    }
    const atEnd = procSample(daemon.pid)
    const endAt = Date.now()
    const usedAfter = yield* rateUsed(sim, token)
    const log = (yield* Effect.promise(() => sim.control.requestLog())).slice(logBefore)
    const exitCode = yield* daemon.stop
    const timeline = yield* Effect.promise(() =>
      burstTimeline({ ledgerFile: join(dir, "state", "ledger.db"), labelledAt, log, repositories, pulls: (repository) => pullHeads(sim, token, repository) })
    )
    return {
      items,
      exitCode,
      timeline,
      labelMs: labelEnd - labelStart,
      windowMs: endAt - labelStart,
      requests: log.filter((r) => r.receivedAtMs <= endAt).length,
      graphqlPoints: usedAfter.graphql - usedBefore.graphql,
      restCharged: usedAfter.core - usedBefore.core,
      /** Labels done → every Run open (seen by the bench's once-a-second look at the ledger), with the daemon's CPU meanwhile. */
      allOpenMs: allOpen === undefined ? Number.NaN : allOpen.at - labelStart,
      openCpuMs: allOpen?.sample !== undefined && atLabel !== undefined ? allOpen.sample.cpuMs - atLabel.cpuMs : Number.NaN,
      openRssMb: allOpen?.sample?.rssMb ?? Number.NaN,
      cpuMs: atEnd !== undefined && atLabel !== undefined ? atEnd.cpuMs - atLabel.cpuMs : Number.NaN,
      startupCpuMs: atLabel?.cpuMs ?? Number.NaN,
      rssMb: atEnd?.rssMb ?? Number.NaN,
      rssBeforeMb: atLabel?.rssMb ?? Number.NaN,
      peakRssMb,
      loadBefore,
      loadMax: Math.max(...loads, load1())
    }
  }).pipe(Effect.scoped)

export type BurstRow = Effect.Effect.Success<ReturnType<typeof measureBurst>>
