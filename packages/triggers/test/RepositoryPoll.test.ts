import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Ref } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { ItemStore } from "@usine/store/ItemStore"
import { PollFailures } from "@usine/triggers/PollFailures"
import { RepositoryPoll, type RepositoryPollReport } from "@usine/triggers/RepositoryPoll"
import { TriggerConfig, type TriggerSettings } from "@usine/triggers/TriggerConfig"
import { openPullRequest } from "./support/openPullRequest"
import { settingsOf } from "./support/settingsOf"
import { clearRequestLog, REPOSITORY, requestLines, SimGitHub, simGitHub } from "./support/SimGitHub"
import { RefuseOnce, TestLedger } from "./support/TestLedger"
import { runLedger } from "@usine/testkit/runLedger"

const LOOPS = `repositories: [acme/widgets]
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on {{ item.title }} ({{ item.labels | join: ', ' }})"
    agent: codex
  - name: review
    on: pull_requests
    if: item.state == "open"
    prompt: "Review {{ item.title }}"
    agent: codex
`

const world = (settings: TriggerSettings, github = SimGitHub) =>
  Layer.mergeAll(RepositoryPoll.Default, PollFailures.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(TestLedger, github, TriggerConfig.fixed(settings)))
  )

const poll = Effect.flatMap(RepositoryPoll, (p) => p.poll(REPOSITORY))
const sim = Effect.map(GitHubSim, (s) => s.control)

/** Event ids the poll submitted, per Loop. */
const submitted = (report: RepositoryPollReport) =>
  report.items.flatMap((item) =>
    item.verdicts.flatMap((v) => (v._tag === "Submitted" ? [`${v.loop}#${item.number}`] : []))
  )

const eventIds = (report: RepositoryPollReport) =>
  report.items.flatMap((item) => item.verdicts.flatMap((v) => (v._tag === "Submitted" ? [v.submission.eventId] : [])))

describe("RepositoryPoll against the emulator", () => {
  it.live("an idle cycle on an unchanged repository costs the open pull request's refresh and uncharged 304s", () =>
    Effect.gen(function* () {
      const control = yield* sim
      yield* control.createIssue({ repo: REPOSITORY, title: "Fix the widget", labels: ["ready-for-agent"] })
      yield* openPullRequest("feature", "Add a widget")
      const first = yield* poll
      assert.deepStrictEqual(submitted(first).sort(), ["review#2", "start-dev#1"])
      assert.isTrue(first.fromEmpty)
      yield* poll // the first `since` listing: the overlap window answers 200 once, and its ETag is kept
      yield* clearRequestLog
      const idle = yield* poll
      assert.isTrue(idle.notModified)
      // The pull request's author is asked about again each cycle, with the ETag of the last answer.
      assert.deepStrictEqual(yield* requestLines, [
        "GET /repos/acme/widgets/issues 304 conditional",
        "POST /graphql 200",
        "GET /repos/acme/widgets/collaborators/acme/permission 304 conditional"
      ])
      assert.deepStrictEqual(idle.cursor.openPullRequests, [2])
      const log = yield* control.requestLog()
      assert.isFalse(log[0]!.counted, "a 304 is not charged to the rate limit")
      assert.isFalse(log[2]!.counted)
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )

  it.live("a change is seen within one cycle; relabelling opens a new Event, a timestamp-only change does not", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const runs = yield* runLedger
      yield* control.createIssue({ repo: REPOSITORY, title: "Fix the widget", labels: ["ready-for-agent"] })
      const [first] = eventIds(yield* poll)
      yield* poll
      // `updated_at` has one-second precision: a touch in the same second would leave the listing byte-identical.
      yield* control.advanceTime({ ms: 1000 })
      yield* control.updateIssue({ repo: REPOSITORY, number: 1, title: "Fix the widget" })
      const touched = yield* poll
      assert.strictEqual(touched.items.length, 1, "the listing reports the touched Item")
      assert.deepStrictEqual(eventIds(touched), [first], "same content, same Event")
      const sameClaim = touched.items[0]!.verdicts[0]!
      assert.strictEqual(sameClaim._tag === "Submitted" && sameClaim.claim._tag === "Claimed" && sameClaim.claim.opened, false)

      yield* control.addLabels({ repo: REPOSITORY, number: 1, labels: ["bug"] })
      const relabelled = yield* poll
      const [second] = eventIds(relabelled)
      assert.isDefined(second)
      assert.notStrictEqual(second, first)
      const verdict = relabelled.items[0]!.verdicts[0]!
      assert.isTrue(verdict._tag === "Submitted" && verdict.claim._tag === "Claimed" && verdict.claim.opened)
      assert.strictEqual((yield* runs.openRuns).length, 1, "the new Event superseded the unstarted Run")

      yield* control.removeLabel({ repo: REPOSITORY, number: 1, label: "ready-for-agent" })
      const unlabelled = yield* poll
      assert.deepStrictEqual(unlabelled.items[0]!.verdicts.map((v) => v._tag), ["Revoked"])
      assert.strictEqual((yield* runs.openRuns).length, 0, "if: false revoked the unstarted Run")

      const projection = yield* Effect.flatMap(ItemStore, (s) => s.projection(itemKeyOf(REPOSITORY, 1)))
      assert.deepStrictEqual(Option.map(projection, (p) => (p.payload as { labels: { nodes: Array<{ name: string }> } }).labels.nodes.map((l) => l.name)), Option.some(["bug"]))
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )

  it.live("eleven pages of changes are consumed over two cycles without loss", () =>
    Effect.gen(function* () {
      const control = yield* sim
      for (let n = 1; n <= 1010; n++) {
        yield* control.createIssue({ repo: REPOSITORY, title: `Issue ${n}` })
        yield* control.advanceTime({ ms: 1000 })
      }
      const first = yield* poll
      assert.strictEqual(first.pages, 10)
      assert.strictEqual(first.items.length, 1000)
      const second = yield* poll
      const seen = new Set([...first.items, ...second.items].map((item) => item.number))
      assert.strictEqual(seen.size, 1010)
      assert.strictEqual(second.pages, 1)
      assert.isTrue(second.items.length < 100, "the second cycle continues from the watermark")
    }).pipe(Effect.provide(world(settingsOf("repositories: [acme/widgets]\n"))), Effect.orDie),
    120_000
  )

  it.live("an emulator fault after the listing leaves the cursor where it was, and the next cycle picks the Items up", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const items = yield* ItemStore
      const runs = yield* runLedger
      yield* control.createIssue({ repo: REPOSITORY, title: "First", labels: ["ready-for-agent"] })
      yield* poll
      const before = yield* items.cursor(REPOSITORY)
      yield* control.advanceTime({ ms: 60_000 })
      for (const title of ["Second", "Third", "Fourth"]) {
        yield* control.createIssue({ repo: REPOSITORY, title, labels: ["ready-for-agent"] })
      }
      // The listing answers; the payload slices fail on the first try and on the client's one retry.
      yield* control.setFault({ method: "POST", path: "/graphql", status: 502, times: 2 })
      const failed = yield* Effect.either(poll)
      assert.isTrue(failed._tag === "Left")
      assert.deepStrictEqual(yield* items.cursor(REPOSITORY), before)
      const next = yield* poll
      assert.includeMembers(next.items.map((item) => item.number), [2, 3, 4])
      assert.strictEqual((yield* runs.openRuns).length, 4)
      assert.isTrue(Option.getOrThrow(yield* items.cursor(REPOSITORY)).watermark! > Option.getOrThrow(before).watermark!)
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )

  it.live("a GitHub that never answers fails the poll within the request timeout, cursor untouched", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const items = yield* ItemStore
      yield* control.createIssue({ repo: REPOSITORY, title: "First" })
      yield* poll
      const before = yield* items.cursor(REPOSITORY)
      yield* control.setFault({ method: "POST", path: "/graphql", hang: true })
      yield* control.createIssue({ repo: REPOSITORY, title: "Second" })
      const failed = yield* Effect.flip(poll)
      assert.strictEqual(failed._tag, "GitHubUnreachable")
      assert.deepStrictEqual(yield* items.cursor(REPOSITORY), before)
    }).pipe(Effect.provide(world(settingsOf(LOOPS), simGitHub({ requestTimeoutMs: 300 }))), Effect.orDie)
  )

  it.live("a submission refused mid-cycle, after other Items were submitted, keeps the cursor; the next cycle completes", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const items = yield* ItemStore
      const runs = yield* runLedger
      for (let n = 1; n <= 30; n++) {
        yield* control.createIssue({ repo: REPOSITORY, title: `Issue ${n}`, labels: ["ready-for-agent"] })
      }
      yield* Effect.flatMap(RefuseOnce, (refuse) => Ref.set(refuse, new Set([28])))
      const failed = yield* Effect.either(poll)
      assert.isTrue(failed._tag === "Left")
      assert.isTrue(Option.isNone(yield* items.cursor(REPOSITORY)), "no cursor was written")
      const before = (yield* runs.openRuns).length
      assert.isAtLeast(before, 25, "the first batch's Items were submitted before the refusal")
      assert.isBelow(before, 30)
      const next = yield* poll
      assert.strictEqual(next.items.length, 30)
      assert.strictEqual((yield* runs.openRuns).length, 30)
      assert.isDefined(Option.getOrThrow(yield* items.cursor(REPOSITORY)).watermark)
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )

  it.live("pausing, unpausing and a cycle-budget reset each restart the repository's poll from an empty cursor", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const runs = yield* runLedger
      yield* control.createIssue({ repo: REPOSITORY, title: "Fix it", labels: ["ready-for-agent"] })
      const [first] = eventIds(yield* poll)
      assert.isFalse((yield* poll).fromEmpty)

      yield* runs.setPaused("start-dev", true)
      const paused = yield* poll
      assert.isTrue(paused.fromEmpty)
      assert.deepStrictEqual(paused.items[0]!.verdicts, [], "a paused Loop submits and revokes nothing")
      assert.isFalse((yield* poll).fromEmpty)
      yield* runs.setPaused("start-dev", false)
      const unpaused = yield* poll
      assert.isTrue(unpaused.fromEmpty)
      assert.deepStrictEqual(eventIds(unpaused), [first])

      yield* runs.resetCycleBudget(itemKeyOf(REPOSITORY, 1))
      yield* clearRequestLog
      const reset = yield* poll
      assert.isTrue(reset.fromEmpty)
      assert.notInclude((yield* requestLines)[0], "since")
      const [renewed] = eventIds(reset)
      assert.deepStrictEqual(JSON.parse(renewed!), [...JSON.parse(first!), 1], "same content, new generation")
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )

  it.live("a prompt that fails to render affects only its Loop, is reported, and the cursor still advances", () =>
    Effect.gen(function* () {
      const control = yield* sim
      yield* control.createIssue({ repo: REPOSITORY, title: "Fix it", labels: ["ready-for-agent"] })
      const report = yield* poll
      assert.deepStrictEqual(report.items[0]!.verdicts.map((v) => `${v.loop}:${v._tag}`), [
        "start-dev:Submitted",
        "broken:RenderFailed"
      ])
      const failures = yield* Effect.flatMap(PollFailures, (f) => f.recent)
      assert.strictEqual(failures.length, 1)
      assert.deepInclude(failures[0], { repository: REPOSITORY, loop: "broken", item: 1 })
      assert.include(failures[0]!.message, "missing")
      assert.isDefined(report.cursor.watermark)
    }).pipe(
      Effect.provide(
        world(
          settingsOf(`${LOOPS}  - name: broken
    on: issues
    prompt: "{{ item.missing }}"
    agent: codex
`)
        )
      ),
      Effect.orDie
    )
  )

  it.live("label preflight creates the declared labels a repository lacks, then leaves the catalog alone", () =>
    Effect.gen(function* () {
      const first = yield* poll
      assert.deepStrictEqual(first.createdLabels, ["ready-for-agent"])
      assert.include(yield* requestLines, "POST /repos/acme/widgets/labels 201")
      yield* poll
      yield* poll
      yield* clearRequestLog
      assert.deepStrictEqual((yield* poll).createdLabels, [])
      // The catalog is read again after LABEL_CATALOG_RECHECK or a change of the declared labels (LabelSync.test.ts).
      assert.deepStrictEqual(yield* requestLines, ["GET /repos/acme/widgets/issues 304 conditional"])
    }).pipe(
      Effect.provide(world(settingsOf(`repositories: [acme/widgets]\nlabels:\n  - name: ready-for-agent\n    color: "0e8a16"\n  - name: bug\n`))),
      Effect.orDie
    )
  )

  it.live("a refresh reads one Item through the same path and never moves the cursor", () =>
    Effect.gen(function* () {
      const control = yield* sim
      const items = yield* ItemStore
      yield* control.createIssue({ repo: REPOSITORY, title: "Fix it" })
      yield* poll
      const before = yield* items.cursor(REPOSITORY)
      yield* control.addLabels({ repo: REPOSITORY, number: 1, labels: ["ready-for-agent"] })
      const refreshed = yield* Effect.flatMap(RepositoryPoll, (p) => p.refresh(REPOSITORY, 1))
      assert.deepStrictEqual(refreshed.verdicts.map((v) => v._tag), ["Submitted"])
      assert.deepStrictEqual(yield* items.cursor(REPOSITORY), before)
    }).pipe(Effect.provide(world(settingsOf(LOOPS))), Effect.orDie)
  )
})
