import { createHmac } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { emitReport } from "./BenchReport"
import { sizesFromArgs } from "./sizesFromArgs"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { startDaemon } from "./throughput/DaemonProcess"
import { benchRepository, benchSim, freePort, LABEL } from "./throughput/benchWorld"
import { median } from "./throughput/median"

const REPOSITORY = "bench/hooks"
const SECRET = "webhook-secret-for-the-bench"
const TARGET_MS = 2_000
const runs = sizesFromArgs([20], "--runs")[0] ?? 20

const yaml = (apiUrl: string, token: string, port: number, workspaces: string) => `github:
  token: ${token}
  api_url: ${apiUrl}
  webhook_secret: ${SECRET}
repositories: [${REPOSITORY}]
poll_interval: 10m
ledger: state/ledger.db
board:
  listen: 127.0.0.1:${port}
agents:
  noop:
    harness: command
    command: [sh, -c, "true"]
workers:
  local:
    root: ${JSON.stringify(workspaces)}
loops:
  - name: hooks
    on: issues
    if: '"${LABEL}" in item.labels'
    prompt: "#{{ item.number }}"
    agent: noop
    approval: required
`

/** The `ts` of each `run opened` line the daemon printed, in order. */
const openedAt = (output: string): ReadonlyArray<number> =>
  [...output.matchAll(/^ts=(\S+) level=INFO msg="run opened"/gm)].map((m) => Date.parse(m[1] ?? ""))

/** The time of the `n`th `run opened` line, once printed. */
const nthOpened = (output: () => string, n: number) =>
  Effect.gen(function* () {
    for (let waited = 0; waited < 30_000; waited += 10) {
      const at = openedAt(output())[n - 1]
      if (at !== undefined) return at
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.dieMessage(`run ${n} never opened; output:\n${output().slice(-4000)}`)
  })

/**
 * Label → Run opened with `poll_interval: 10m`: each round labels an issue on the emulator and sends the signed
 * `issues` delivery GitHub would, then waits for the daemon's `run opened` line. Polling alone would take 5 minutes
 * on average.
 */
const program = Effect.gen(function* () {
  const dir = yield* scopedTempDir("usine-bench-webhooks-")
  const { sim, token } = yield* benchSim
  yield* benchRepository(sim, "bench", "hooks", 1)
  const issues: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: `hook ${i}`, body: "" }))
    issues.push(issue.number)
  }
  const port = yield* freePort
  writeFileSync(join(dir, "usine.yaml"), yaml(sim.url, token, port, join(dir, "workspaces")))
  const daemon = yield* startDaemon(dir)
  yield* daemon.waitFor(/msg="run opened"/) // the first poll saw the seeded, labelled issue
  const took: Array<number> = []
  for (const number of issues) {
    const before = openedAt(daemon.output()).length
    const started = Date.now()
    yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number, labels: [LABEL] }))
    const body = JSON.stringify({ action: "labeled", issue: { number }, label: { name: LABEL }, repository: { full_name: REPOSITORY } })
    const response = yield* Effect.promise(() =>
      fetch(`http://127.0.0.1:${port}/webhooks/github`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": `bench-${number}`,
          "x-hub-signature-256": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`
        },
        body
      })
    )
    if (response.status !== 202) return yield* Effect.dieMessage(`delivery answered ${response.status}`)
    took.push((yield* nthOpened(daemon.output, before + 1)) - started)
  }
  yield* daemon.stop
  const sorted = [...took].sort((a, b) => a - b)
  const mid = median(took)
  emitReport({
    bench: "webhooks",
    tables: [{
      title: `Label → Run opened through a signed webhook, poll_interval 10m (${runs} rounds)`,
      columns: ["rounds", "median ms", "min ms", "p90 ms", "max ms"],
      rows: [[runs, Math.round(mid), sorted[0] ?? 0, sorted[Math.floor(sorted.length * 0.9)] ?? 0, sorted.at(-1) ?? 0]]
    }],
    targets: [{ name: "label → Run opened through a webhook (median)", target: `< ${TARGET_MS} ms`, measured: `${Math.round(mid)} ms`, met: mid < TARGET_MS }],
    notes: [
      "Each round: the label is added on the emulator, then the signed issues delivery is POSTed to the Board's listener; the time ends at the `ts` of the daemon's `run opened` line (same clock).",
      "The Run's Item is read again through the Hint path: the issue REST read, its GraphQL slice, the trust check of the labeller, then the claim."
    ]
  })
}).pipe(Effect.scoped)

Effect.runPromise(program).catch((error) => {
  console.error(error)
  process.exit(1)
})
