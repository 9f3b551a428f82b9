import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Layer, Schema, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Attempt } from "@usine/core/attempt/Attempt"
import { GitHubClient } from "@usine/github/GitHubClient"
import { SessionRecord } from "../../src/DurableSession/SessionRecord"
import * as WorkerExecutor from "../../src/WorkerExecutor"
import { PullRequests } from "@usine/github/PullRequests"
import * as SshTransport from "../../src/SshTransport"
import { WorkerDirectory } from "../../src/WorkerDirectory"
import { runningInGroup } from "../groupProcesses"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { sshdAvailable, sshServer } from "../sshServer"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

const LINES = 20

/** Polls until `ready` holds, failing the test after `ms`. */
const until = (ready: () => boolean, what: string, ms = 30_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (!ready()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })

describe.runIf(sshdAvailable)("WorkerExecutor on an SSH Worker", () => {
  it.scopedLive(
    "an Attempt runs over ssh, outlives its daemon, and a new daemon with a new connection finishes it: one pull request, no gap, no duplicate",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const server = yield* sshServer(yield* scopedTempDir("usine-sshd-"))
        // The "remote" host is this machine: the Worker root is a real local path the test can inspect.
        const root = path.join(t.dir, "remote-root")
        const gate = path.join(t.dir, "go")
        const slow = scriptedAgent("slow", { LINES_TOTAL: String(LINES), LINE_DELAY: "0.1", GATE: gate })

        /** A daemon: its own ssh connection, GitHub client and executor, all living as long as `scope`. */
        const daemon = (scope: Scope.Scope) =>
          Effect.gen(function* () {
            const transport = yield* SshTransport.make({ destination: server.destination, sshOptions: server.options })
            const github = Layer.provide(PullRequests.github, GitHubClient.Default({ token: t.executorOptions.token, apiUrl: t.sim.url, retries: 0 }))
            const pullRequests = yield* Effect.provide(PullRequests, github)
            return yield* WorkerExecutor.make({
              ...t.executorOptions,
              agent: (name) => (name === "slow" ? slow : undefined),
              workers: WorkerDirectory.of({ remote: { transport, root } }),
              pollInterval: "100 millis"
            }).pipe(Effect.provideService(PullRequests, pullRequests))
          }).pipe(Scope.extend(scope))

        const run = makeRun("slow")
        const attempt = new Attempt({ ...makeAttempt(run, 1), worker: "remote" })
        const log = recorder()
        const request = (reattach: boolean) => ({ ...log.request(run, attempt, policy(), reattach), worker: "remote" })
        const said = () => log.rows.filter((row) => row.kind === "assistant").length

        const firstScope = yield* Scope.make()
        const first = yield* daemon(firstScope)
        const following = yield* Effect.fork(first.execute(request(false)))
        yield* until(() => said() >= 3, "the agent to stream over ssh")
        // The daemon stops following and goes away, its ssh connection with it.
        yield* Fiber.interrupt(following)
        assert.isTrue(yield* first.isLive(attempt))
        yield* Scope.close(firstScope, Exit.void)

        assert.strictEqual(log.sessions.length, 1)
        const record = Schema.decodeSync(Schema.parseJson(SessionRecord))(log.sessions[0] ?? "")
        assert.strictEqual(record.host, server.destination, "the session was started through the ssh transport")
        assert.isTrue(record.attemptDir.startsWith(`${root}/`), record.attemptDir)
        assert.isAbove(runningInGroup(record.pgid).length, 0, "the agent outlived its daemon's ssh connection")
        const stored = log.rows.length
        assert.isBelow(said(), LINES, "the detach landed mid-stream")

        const next = yield* daemon(yield* Effect.scope)
        assert.isTrue(yield* next.isLive(attempt))
        const resumed = yield* Effect.fork(next.execute(request(true)))
        yield* until(() => log.rows.length > stored, "the new daemon to stream")
        fs.writeFileSync(gate, "")
        const outcome = yield* Fiber.join(resumed)
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return

        const texts = log.rows.map((row) => row.text)
        assert.match(texts[0] ?? "", /^workspace on remote at [0-9a-f]{8} \(main\)/)
        assert.deepStrictEqual(texts.slice(1, 2), ["agent turn 1 started"])
        assert.deepStrictEqual(
          log.rows.filter((row) => row.kind === "assistant").map((row) => row.text),
          Array.from({ length: LINES }, (_, i) => `line ${i + 1}`)
        )
        const branch = outcome.result.branch ?? ""
        assert.deepStrictEqual(texts.slice(2 + LINES), [
          "agent turn 1 exited with code 0",
          `pushed 1 commit to ${branch}; pull request #${outcome.result.pullRequestNumber} opened`
        ])
        assert.strictEqual(log.rows.length, 2 + LINES + 2)

        const pulls = yield* t.pulls
        assert.deepStrictEqual(pulls.map((pull) => [pull.number, pull.head.ref]), [[outcome.result.pullRequestNumber ?? 0, branch]])
        assert.strictEqual(t.origin("show", `${branch}:slow.txt`), "slow")
        assert.deepStrictEqual(
          outcome.result.diff?.files,
          [{ path: "slow.txt", insertions: 1, deletions: 0, binary: false }],
          "counted on the Worker, over ssh"
        )
        assert.deepStrictEqual(runningInGroup(record.pgid), [], "no process of the session is left")
        // The folder stays until the ledger holds the outcome (ADR 0110): the engine then releases it.
        assert.isTrue(fs.existsSync(record.attemptDir), "kept until the outcome is recorded")
        assert.isTrue(yield* next.isLive(attempt), "an outcome journaled and not yet recorded can still be followed")
        yield* next.release!(attempt)
        assert.isFalse(fs.existsSync(record.attemptDir), "the finished Attempt's folder is removed once released")
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})
