import { readFileSync, rmSync, statSync } from "node:fs"
import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Fiber, Layer, Schedule } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { attack, filesUnder, type HostileDaemon, hostileDaemon, runOf, settledRuns } from "./support/HostileDaemon"
import { drainsClean } from "./support/finalProofs"
import { describeRun, neutralised } from "./support/proofs"

/**
 * Issue 31: an agent that prints without end, through `usine up` with the sandbox on. Its `verify` script prints
 * 500 MB, its stdout carries 500 MB in lines and 500 MB on one line, its stderr 500 MB, all at once; the daemon's
 * resident memory is read from /proc. Each Run ends with its reason on the Board, and a clean Item after them
 * still opens its pull request (ADR 0085).
 */
const FLOOD_BYTES = Number(process.env["USINE_FLOOD_BYTES"] ?? 500_000_000)
/** The daemon's peak resident memory allowed through the floods. */
const PEAK_LIMIT_KIB = 600 * 1024
const VERIFY_BYTES = 32 * 1024

const LOOPS = `
  - name: flood
    on: issues
    if: '"hostile" in item.labels'
    prompt: "attack {{ item.title }} on #{{ item.number }}"
    agent: hostile
    approval: none
    verify: ['[ ! -f verify.sh ] || sh verify.sh']
    verify_rounds: 0
    output: {verify_bytes: 32KiB}
    retry_backoff: [1s]`

const FLOODS = ["flood-verify", "flood-lines", "flood-line", "flood-stderr"] as const

/** One figure of `/proc/<pid>/status` in KiB. */
const statusKib = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN)

class Flooded extends Context.Tag("test/hostile/Flooded")<Flooded, {
  readonly daemon: HostileDaemon
  readonly runs: ReadonlyMap<string, RunView | undefined>
  readonly memory: { readonly beforeKib: number; readonly peakRssKib: number; readonly hwmKib: number; readonly seconds: number }
}>() {}

const flooded = Layer.scoped(
  Flooded,
  Effect.gen(function* () {
    const daemon = yield* hostileDaemon({ loops: LOOPS, slots: 4, agentEnv: { FLOOD_BYTES: String(FLOOD_BYTES) } })
    // Runs before the daemon's own finalizers: the floods' files are not read again for the token scan.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const file of filesUnder(daemon.dir)) if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 64 * 1024 * 1024) rmSync(file, { force: true })
      })
    )
    const pid = daemon.usine.child.pid ?? 0
    const beforeKib = statusKib(pid, "VmHWM")
    let peakRssKib = 0
    const sampler = yield* Effect.sync(() => void (peakRssKib = Math.max(peakRssKib, statusKib(pid, "VmRSS")))).pipe(
      Effect.ignore,
      Effect.repeat(Schedule.spaced("100 millis")),
      Effect.fork
    )
    const started = Date.now()
    const numbers = yield* Effect.forEach(FLOODS, (name) => attack(daemon, name))
    const views = yield* settledRuns(daemon, numbers, 300)
    const seconds = (Date.now() - started) / 1000
    const hwmKib = statusKib(pid, "VmHWM")
    yield* Fiber.interrupt(sampler)
    const [clean] = yield* settledRuns(daemon, [yield* attack(daemon, "clean")])
    const memory = { beforeKib, peakRssKib, hwmKib, seconds }
    console.log(`flood figures (${FLOOD_BYTES} bytes each, ${FLOODS.length} at once): ${JSON.stringify(memory)}`)
    return { daemon, memory, runs: new Map([...FLOODS.map((name, i) => [name, views[i]] as const), ["clean", clean]]) }
  })
)

layer(flooded, { timeout: "420 seconds", excludeTestServices: true })("hostile agent: output floods, through usine up", (it) => {
  it.effect("the daemon's peak resident memory stays bounded while 2 GB of agent output goes by", () =>
    Effect.gen(function* () {
      const { memory } = yield* Flooded
      assert.isBelow(memory.hwmKib, PEAK_LIMIT_KIB, JSON.stringify(memory))
      assert.isBelow(memory.peakRssKib, PEAK_LIMIT_KIB, JSON.stringify(memory))
    }))

  it.effect("flood-verify: the Run fails on its verification, its evidence the output's tail and the count of what was dropped", () =>
    Effect.gen(function* () {
      const { runs } = yield* Flooded
      const view = runOf(runs, "flood-verify")
      // Failed work is salvaged to a branch of its own as any failed verification is; no pull request.
      assert.strictEqual(view.run.state, "Failed", describeRun(view))
      assert.isUndefined(view.result?.pullRequestUrl)
      const failure = view.attempts.at(-1)?.failure
      assert.match(`${failure?.tag}: ${failure?.reason}`, /AgentFailure: verification still fails/, describeRun(view))
      const evidence = failure?.evidence ?? ""
      assert.match(evidence, /…\[\d+ bytes dropped\]\nv{1000}/)
      const dropped = Number(/…\[(\d+) bytes dropped\]/.exec(evidence)?.[1])
      assert.strictEqual(dropped, FLOOD_BYTES - VERIFY_BYTES, describeRun(view))
      assert.isBelow(evidence.length, VERIFY_BYTES + 4096, "only the tail `output.verify_bytes` keeps is evidence")
    }))

  it.effect("flood-lines: the transcript stops at its cap with one marker counting the dropped rows; the work still goes out", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Flooded
      const view = runOf(runs, "flood-lines")
      assert.deepStrictEqual(neutralised(daemon, view, "flood-lines"), [])
      const markers = view.transcript.lines.filter((line) => line.text.startsWith("transcript truncated at its cap"))
      assert.strictEqual(markers.length, 1, describeRun(view))
      const dropped = Number(/: (\d+) later rows/.exec(markers[0]?.text ?? "")?.[1])
      // 1,000-byte rows: 16 MiB of them are kept, every later one is counted.
      assert.isAbove(dropped, FLOOD_BYTES / 1000 - 20_000, markers[0]?.text)
    }))

  it.effect("flood-line: one line without a newline is cut and marked; the work still goes out", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Flooded
      const view = runOf(runs, "flood-line")
      assert.deepStrictEqual(neutralised(daemon, view, "flood-line"), [])
      const line = view.transcript.lines.find((l) => l.text.startsWith("nnnnnnnn"))
      assert.match(line?.text ?? "", /^n{1000}[\s\S]*truncated/, describeRun(view))
      assert.isTrue(view.transcript.lines.some((l) => l.text.includes("hostile agent: attack flood-line done")), "the lines after the cut one are read")
    }))

  it.effect("flood-stderr: the Run fails on the agent's exit, its evidence the last lines of stderr, no more", () =>
    Effect.gen(function* () {
      const { runs } = yield* Flooded
      const view = runOf(runs, "flood-stderr")
      assert.strictEqual(view.run.state, "Failed", describeRun(view))
      const failure = view.attempts.at(-1)?.failure
      assert.match(`${failure?.tag}: ${failure?.reason}`, /AgentFailure: the agent's CLI exited with code 1/, describeRun(view))
      assert.match(failure?.evidence ?? "", /stderr:\n(e{99}\n){19}e{99}$/, describeRun(view))
      assert.isBelow((failure?.evidence ?? "").length, 8192)
    }))

  it.effect("after the floods a clean Item still opens its pull request", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Flooded
      assert.deepStrictEqual(neutralised(daemon, runOf(runs, "clean"), "clean"), [], describeRun(runOf(runs, "clean")))
    }))

  it.effect("the daemon drains on SIGTERM and exits 0", () => Effect.flatMap(Flooded, ({ daemon }) => drainsClean(daemon)), 90_000)
})
