import { Effect, Option } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import * as DurableSession from "@usine/executor/DurableSession"
import type { SessionSandbox } from "@usine/executor/DurableSession/startSession"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { probeSandbox, sandboxCommand } from "@usine/executor/Sandbox"
import { emitReport } from "./BenchReport"
import { median } from "./throughput/median"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** Sessions (and verify commands) measured per case, after one unmeasured warm-up. */
const RUNS = Number(process.argv[process.argv.indexOf("--runs") + 1] ?? "") || 30

const transport = LocalTransport.make()
const sessions = DurableSession.make(transport)

/** An HTTP listener on 127.0.0.1 standing in for a model endpoint, so a bridged case has a real target. */
const endpoint = Effect.acquireRelease(
  Effect.async<http.Server>((resume) => {
    const server = http.createServer((_, response) => response.end("ok"))
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
  }),
  (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
).pipe(Effect.map((server) => (server.address() as AddressInfo).port))

/** Milliseconds from the start of a session running `argv` to its recorded exit. */
const sessionMs = (dir: string, worktree: string, argv: ReadonlyArray<string>, sandbox: SessionSandbox | undefined) =>
  Effect.gen(function* () {
    const started = performance.now()
    const { record } = yield* sessions.start({ attemptDir: dir, workdir: worktree, argv, env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }, sandbox })
    for (;;) {
      const status = yield* sessions.status(record)
      if (status._tag !== "Running") break
      const exit = yield* transport.readFile(join(dir, "exit"), { maxBytes: 0 })
      if (Option.isNone(exit)) yield* Effect.sleep("2 millis")
    }
    return performance.now() - started
  })

const measureSessions = (root: string, name: string, argv: ReadonlyArray<string>, sandbox: SessionSandbox | undefined) =>
  Effect.gen(function* () {
    const worktree = join(root, "worktree")
    mkdirSync(worktree, { recursive: true })
    const times: Array<number> = []
    for (let i = 0; i <= RUNS; i++) {
      const ms = yield* sessionMs(join(root, `${name}-${i}`), worktree, argv, sandbox)
      if (i > 0) times.push(ms)
    }
    return median(times)
  })

const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const times: Array<number> = []
    for (let i = 0; i <= RUNS; i++) {
      const started = performance.now()
      yield* effect
      if (i > 0) times.push(performance.now() - started)
    }
    return median(times)
  })

const program = Effect.gen(function* () {
  const root = yield* scopedTempDir("usine-bench-sandbox-")
  const port = yield* endpoint
  const unavailable = yield* probeSandbox(transport)
  if (unavailable !== undefined) return yield* Effect.die(new Error(`no working sandbox here: ${unavailable}`))
  const worktree = join(root, "worktree")
  const fetchOnce = ["sh", "-c", `curl -s -o /dev/null http://127.0.0.1:${port}/`]
  const alone: SessionSandbox = { writable: [worktree], readOnly: [], homeFiles: [], tools: ["git", "node"], network: [] }
  const bridged: SessionSandbox = { ...alone, network: [{ host: "127.0.0.1", port }, { host: "localhost", port: port + 1 }] }

  const plain = yield* measureSessions(root, "plain", ["true"], undefined)
  const sandboxed = yield* measureSessions(root, "sandboxed", ["true"], alone)
  const plainFetch = yield* measureSessions(root, "plain-fetch", fetchOnce, undefined)
  const bridgedFetch = yield* measureSessions(root, "bridged-fetch", fetchOnce, bridged)
  const probe = yield* timed(probeSandbox(transport))
  const verifyDir = join(root, "verify")
  mkdirSync(verifyDir, { recursive: true })
  const plainVerify = yield* timed(transport.exec({ argv: ["sh", "-c", "true"], cwd: worktree }))
  const sandboxedVerify = yield* timed(
    sandboxCommand(transport, { dir: verifyDir, workdir: worktree, writable: [worktree], readOnly: [], homeFiles: [], tools: ["git", "node"], network: [], path: process.env["PATH"], argv: ["sh", "-c", "true"] }).pipe(
      Effect.flatMap((sandboxedArgv) => transport.exec({ argv: sandboxedArgv.argv, cwd: worktree }))
    )
  )
  // The sandbox's preparation on a worktree of 2,000 files in 100 folders: a root daemon gives them to the agent's uid.
  const bigTree = join(root, "big-worktree")
  for (let d = 0; d < 100; d++) {
    mkdirSync(join(bigTree, `d${d}`), { recursive: true })
    for (let f = 0; f < 20; f++) writeFileSync(join(bigTree, `d${d}`, `f${f}.txt`), "x\n")
  }
  const prepare = (tree: string) =>
    timed(sandboxCommand(transport, { dir: verifyDir, workdir: tree, writable: [tree], readOnly: [], homeFiles: [], tools: ["git", "node"], network: [], path: process.env["PATH"], argv: ["true"] }))
  const prepareEmpty = yield* prepare(worktree)
  const prepareBig = yield* prepare(bigTree)
  const turn = sandboxed - plain
  const verify = sandboxedVerify - plainVerify
  const perAttempt = probe + turn + verify
  emitReport({
    bench: "sandbox",
    tables: [
      {
        title: `Sandbox cost on a local Worker (median of ${RUNS}, ms)`,
        columns: ["step", "unconfined", "bubblewrap", "cost"],
        rows: [
          ["agent session running `true`, start to recorded exit", plain, sandboxed, turn],
          ["agent session fetching once through 2 bridges", plainFetch, bridgedFetch, bridgedFetch - plainFetch],
          ["verify command `true`", plainVerify, sandboxedVerify, verify],
          ["Worker probe: trial `bwrap … true`", 0, probe, probe],
          ["preparing a sandbox (layout probe, files), empty worktree", "", prepareEmpty, ""],
          ["the same, worktree of 2,000 files (given to the agent's uid as root)", "", prepareBig, prepareBig - prepareEmpty],
          ["one Attempt: probe, one turn, one verify command", "", "", perAttempt]
        ]
      }
    ],
    targets: [
      // Small against an agent turn (tens of seconds to minutes); most of it is bwrap making the namespaces.
      { name: "sandbox cost per Attempt", target: "< 300 ms", measured: `${perAttempt.toFixed(1)} ms`, met: perAttempt < 300 }
    ],
    notes: [
      "Each further agent turn adds the session row's cost, each further verify command the verify row's, each allowed endpoint a socat pair."
    ]
  })
})

Effect.runPromise(Effect.scoped(program)).catch((error) => {
  console.error(error)
  process.exit(1)
})
