import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { GitHubClient } from "@usine/github/GitHubClient"
import { LABEL_CATALOG_RECHECK, LabelSync } from "@usine/triggers/LabelSync"
import { PollFailures } from "@usine/triggers/PollFailures"
import { RepositoryPoll } from "@usine/triggers/RepositoryPoll"
import { TriggerConfig, type TriggerSettings } from "@usine/triggers/TriggerConfig"
import { settingsOf } from "./support/settingsOf"
import { clearRequestLog, REPOSITORY, requestLines, SimGitHub } from "./support/SimGitHub"
import { TestLedger } from "./support/TestLedger"

const OTHER = "acme/gadgets"

const LABELS = `repositories: [acme/widgets, acme/gadgets]
labels:
  - name: ready-for-agent
    color: "0e8a16"
    description: Ready for an agent
  - name: needs-review
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on {{ item.title }}"
    agent: codex
`

const world = (settings: TriggerSettings) =>
  Layer.mergeAll(RepositoryPoll.Default, PollFailures.Default, LabelSync.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(TestLedger, SimGitHub, TriggerConfig.fixed(settings)))
  )

const poll = (repository: string) => Effect.flatMap(RepositoryPoll, (p) => p.poll(repository))
const pollBoth = Effect.all([poll(REPOSITORY), poll(OTHER)])
const sim = Effect.map(GitHubSim, (s) => s.control)
const addOther = Effect.flatMap(sim, (control) => control.createRepository({ owner: "acme", name: "gadgets" }))

/** The catalog label as the emulator holds it, or undefined. */
const catalogLabel = (name: string) =>
  Effect.flatMap(GitHubClient, (client) =>
    client.request("GET /repos/{owner}/{repo}/labels", { owner: "acme", repo: "widgets", per_page: 100 })
  ).pipe(Effect.map((response) => response.data.find((label) => label.name === name)))

/** Someone deletes a label on GitHub, behind the daemon's back. */
const deleteLabel = (name: string) =>
  Effect.flatMap(GitHubClient, (client) =>
    client.request("DELETE /repos/{owner}/{repo}/labels/{name}", { owner: "acme", repo: "widgets", name })
  )

describe("LabelSync", () => {
  it.live("after the first cycle, an idle cycle is exactly one conditional request a repository, and free", () =>
    Effect.gen(function* () {
      yield* addOther
      const [first] = yield* pollBoth
      assert.deepStrictEqual(first.createdLabels, ["ready-for-agent", "needs-review"])
      yield* pollBoth
      yield* clearRequestLog
      const reports = yield* pollBoth
      assert.deepStrictEqual(reports.map((r) => r.notModified), [true, true])
      assert.deepStrictEqual(yield* requestLines, [
        "GET /repos/acme/widgets/issues 304 conditional",
        "GET /repos/acme/gadgets/issues 304 conditional"
      ])
      const log = yield* Effect.flatMap(sim, (control) => control.requestLog())
      assert.isTrue(log.every((entry) => entry.conditional && !entry.counted), "no primary quota used")
    }).pipe(Effect.provide(world(settingsOf(LABELS))), Effect.orDie)
  )

  it.scoped("a declared label deleted on GitHub is created again, with its colour, at the next catalog recheck", () =>
    Effect.gen(function* () {
      yield* poll(REPOSITORY)
      assert.strictEqual((yield* catalogLabel("ready-for-agent"))?.color, "0e8a16")
      yield* deleteLabel("ready-for-agent")
      yield* TestClock.adjust("59 minutes")
      yield* clearRequestLog
      yield* poll(REPOSITORY)
      assert.notInclude(yield* requestLines, "GET /repos/acme/widgets/labels 200 conditional", "the catalog is trusted")
      assert.isUndefined(yield* catalogLabel("ready-for-agent"))
      yield* TestClock.adjust(LABEL_CATALOG_RECHECK)
      yield* clearRequestLog
      assert.deepStrictEqual((yield* poll(REPOSITORY)).createdLabels, ["ready-for-agent"])
      assert.includeMembers(yield* requestLines, [
        "GET /repos/acme/widgets/labels 200 conditional",
        "POST /repos/acme/widgets/labels 201"
      ])
      const recreated = yield* catalogLabel("ready-for-agent")
      assert.deepInclude(recreated, { color: "0e8a16", description: "Ready for an agent" })
    }).pipe(Effect.provide(world(settingsOf(LABELS))), Effect.orDie)
  )

  it.scoped("a recheck (a label webhook) reads the catalog at the next cycle, not the hourly one", () =>
    Effect.gen(function* () {
      yield* poll(REPOSITORY)
      yield* deleteLabel("ready-for-agent")
      yield* TestClock.adjust("1 minute")
      yield* (yield* LabelSync).recheck(REPOSITORY)
      assert.deepStrictEqual((yield* poll(REPOSITORY)).createdLabels, ["ready-for-agent"])
      yield* (yield* LabelSync).recheck("acme/unknown")
      yield* clearRequestLog
      yield* poll(REPOSITORY)
      assert.notInclude(yield* requestLines, "GET /repos/acme/widgets/labels 200 conditional", "trusted again")
    }).pipe(Effect.provide(world(settingsOf(LABELS))), Effect.orDie)
  )

  it.live("a changed label declaration (a config reload) is synchronized at the next cycle", () => {
    let current = settingsOf(LABELS)
    const live: TriggerSettings = {
      get repositories() { return current.repositories },
      get loops() { return current.loops },
      get labels() { return current.labels },
      get pollInterval() { return current.pollInterval }
    }
    return Effect.gen(function* () {
      yield* poll(REPOSITORY)
      yield* poll(REPOSITORY)
      current = settingsOf(`${LABELS.replace("labels:\n", "labels:\n  - name: blocked\n    color: \"b60205\"\n")}`)
      yield* clearRequestLog
      assert.deepStrictEqual((yield* poll(REPOSITORY)).createdLabels, ["blocked"])
      assert.include(yield* requestLines, "POST /repos/acme/widgets/labels 201")
      yield* clearRequestLog
      yield* poll(REPOSITORY)
      assert.deepStrictEqual(yield* requestLines, ["GET /repos/acme/widgets/issues 304 conditional"])
    }).pipe(Effect.provide(world(live)), Effect.orDie)
  })

  it.live("a preflight that failed reads the catalog again at the next cycle and creates what is missing", () =>
    Effect.gen(function* () {
      const control = yield* sim
      yield* control.setFault({ method: "POST", path: "/repos/acme/widgets/labels", status: 500 })
      const first = yield* poll(REPOSITORY)
      assert.deepStrictEqual(first.createdLabels, [])
      const failures = yield* Effect.flatMap(PollFailures, (f) => f.recent)
      assert.include(failures[0]?.message, "label preflight")
      yield* control.clearFaults()
      yield* clearRequestLog
      assert.deepStrictEqual((yield* poll(REPOSITORY)).createdLabels, ["ready-for-agent", "needs-review"])
      assert.include(yield* requestLines, "GET /repos/acme/widgets/labels 304 conditional")
    }).pipe(Effect.provide(world(settingsOf(LABELS))), Effect.orDie)
  )
})
