import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import * as WorkerExecutor from "../../src/WorkerExecutor"
import { PullRequests } from "@usine/github/PullRequests"
import * as SshTransport from "../../src/SshTransport"
import { WorkerDirectory } from "../../src/WorkerDirectory"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { makeAttempt, makeRun, policy, pushBranch, recorder, REPOSITORY, scriptedAgent, setup, simLayer } from "./support/fixture"

const E2E_TIMEOUT = 60_000

describe("WorkerExecutor against the GitHub emulator", () => {
  it.scopedLive(
    "verification fails once, the agent fixes it after feedback, the daemon pushes, and one pull request exists",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const run = makeRun("fix-after-feedback")
        const log = recorder()
        const outcome = yield* t.executor.execute(
          log.request(run, makeAttempt(run, 1), policy({ verify: ["grep -q fixed status.txt"], verifyRounds: 2 }))
        )

        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return
        const branch = `usine/start-dev/1-${run.id.slice(0, 8)}`
        assert.strictEqual(outcome.result.branch, branch)
        assert.strictEqual(outcome.result.commits.length, 1, "usine's one commit of the agent's final tree")
        const pulls = yield* t.pulls
        assert.strictEqual(pulls.length, 1)
        assert.strictEqual(outcome.result.pullRequestNumber, pulls[0]!.number)
        assert.strictEqual(outcome.result.pullRequestUrl, pulls[0]!.html_url)
        assert.strictEqual(pulls[0]!.head.ref, branch)
        assert.strictEqual(pulls[0]!.base.ref, "main")
        assert.strictEqual(pulls[0]!.title, "Add the feature")
        const body = pulls[0]!.body ?? ""
        assert.include(body, "### Verification")
        assert.include(body, "Every `verify:` command passed in round 2, after 1 failed round the agent fixed.")
        assert.match(body, /- passed in \d+\.\d s: `grep -q fixed status\.txt`/)
        assert.include(body, "<details><summary>Round 1: grep -q fixed status.txt failed (exit 1)</summary>")
        assert.strictEqual(t.origin("show", `${branch}:status.txt`), "fixed")
        assert.strictEqual(t.origin("rev-parse", `refs/heads/${branch}`), outcome.result.commits.at(-1))
        assert.strictEqual(t.origin("log", "-1", "--format=%an %cn", branch), "usine-agent usine-agent")
        assert.match(t.origin("log", "-1", "--format=%B", branch), /^start-dev: work on #1\n\nBuilt by usine from the agent's work \(Run /)
        assert.strictEqual(t.origin("rev-parse", `${branch}^`), t.origin("rev-parse", "refs/heads/main"), "built on the base usine chose")

        const verify = log.rows.filter((row) => row.kind === "verify")
        assert.deepStrictEqual(
          verify.map((row) => row.text.split("\n")[0]),
          ["fail (round 1, exit 1): grep -q fixed status.txt", "pass (round 2, exit 0): grep -q fixed status.txt"]
        )
        const said = log.rows.filter((row) => row.kind === "assistant").map((row) => row.text)
        assert.deepStrictEqual(said, ["first try", "fixing after feedback"])
        assert.strictEqual(log.sessions.length, 2, "one session per turn")
        const folder = path.join(t.root, "attempts", `${run.id}_main_1`)
        assert.isTrue(fs.existsSync(folder), "the workspace stays until the engine has recorded the outcome (ADR 0110)")
        yield* t.executor.release!(makeAttempt(run, 1))
        assert.isFalse(fs.existsSync(folder), "the workspace is removed once released")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a second Attempt of the same Run pushes to the same branch and updates the same pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const run = makeRun("edit")
        const first = recorder()
        const one = yield* t.executor.execute(first.request(run, makeAttempt(run, 1), policy()))
        assert.strictEqual(one._tag, "Succeeded", JSON.stringify(one))
        const second = recorder()
        const two = yield* t.executor.execute(second.request(run, makeAttempt(run, 2), policy()))
        assert.strictEqual(two._tag, "Succeeded", JSON.stringify(two))
        if (one._tag !== "Succeeded" || two._tag !== "Succeeded") return

        const pulls = yield* t.pulls
        assert.strictEqual(pulls.length, 1, "a retry never opens a second pull request")
        assert.strictEqual(two.result.pullRequestNumber, one.result.pullRequestNumber)
        assert.include(pulls[0]!.body ?? "", "Attempt 2", "its body was updated")
        assert.include(pulls[0]!.body ?? "", "The Loop has no `verify:` commands")
        assert.include(two.result.summary ?? "", "updated")
        // Attempt 2 continued from the Run's branch: both Attempts' lines are there.
        assert.strictEqual(t.origin("show", `${two.result.branch}:feature.txt`).split("\n").length, 2)
        assert.strictEqual(t.origin("rev-parse", `refs/heads/${two.result.branch}`), two.result.commits.at(-1))
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a guard violation pushes nothing, and a forbidden-path change is refused",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const before = t.branches()

        const secretRun = makeRun("secret")
        const secret = recorder()
        const leaked = yield* t.executor.execute(secret.request(secretRun, makeAttempt(secretRun, 1), policy()))
        assert.strictEqual(leaked._tag, "Failed")
        if (leaked._tag !== "Failed") return
        assert.strictEqual(leaked.failure._tag, "AgentFailure")
        assert.include(leaked.failure.reason, "nothing was pushed")
        assert.include(leaked.failure.evidence, "secret_scan: config.txt:1 looks like a github token")
        assert.notInclude(leaked.failure.evidence, "0123456789abcdefghij")

        // The same secret behind a forged object named after the base's README blob (ADR 0053).
        const shadowRun = makeRun("shadow")
        const shadowed = yield* t.executor.execute(recorder().request(shadowRun, makeAttempt(shadowRun, 1), policy()))
        assert.strictEqual(shadowed._tag === "Failed" && shadowed.failure._tag, "AgentFailure", JSON.stringify(shadowed))
        assert.include(shadowed._tag === "Failed" ? shadowed.failure.evidence : "", "secret_scan: README.md:1 looks like a github token")

        const ciRun = makeRun("workflow")
        const ci = recorder()
        const refused = yield* t.executor.execute(ci.request(ciRun, makeAttempt(ciRun, 1), policy()))
        assert.strictEqual(refused._tag, "Failed")
        if (refused._tag !== "Failed") return
        assert.strictEqual(refused.failure._tag, "AgentFailure")
        assert.include(refused.failure.evidence, "forbidden_paths: .github/workflows/evil.yml matches forbidden path .github/workflows/**")

        assert.deepStrictEqual(t.branches(), before, "no branch, not even a salvage branch, was pushed")
        assert.deepStrictEqual(yield* t.pulls, [])
        assert.include(ci.rows.at(-1)?.text ?? "", "not salvaged")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a Run branch someone else pushed to meanwhile is not overwritten: the push is refused and the work salvaged",
    () =>
      Effect.gen(function* () {
        const gate = path.join(yield* scopedTempDir("usine-gate-"), "go")
        const t = yield* setup({ agents: { slow: scriptedAgent("slow", { LINES_TOTAL: "1", LINE_DELAY: "0", GATE: gate }) } })
        const run = makeRun("slow")
        const log = recorder()
        const fiber = yield* Effect.fork(t.executor.execute(log.request(run, makeAttempt(run, 1), policy())))
        while (!log.rows.some((row) => row.text === "line 1")) yield* Effect.sleep("20 millis")
        const branch = `usine/start-dev/1-${run.id.slice(0, 8)}`
        const theirs = yield* pushBranch(t, branch)
        fs.writeFileSync(gate, "")
        const outcome = yield* Fiber.join(fiber)
        assert.strictEqual(outcome._tag, "Failed")
        if (outcome._tag !== "Failed") return
        assert.strictEqual(outcome.failure._tag, "AgentFailure")
        assert.strictEqual(outcome.failure.reason, `${branch} moved on GitHub since the Attempt began; nothing was overwritten`)
        assert.include(outcome.failure.evidence, "stale info")
        assert.strictEqual(t.origin("rev-parse", `refs/heads/${branch}`), theirs)
        assert.strictEqual(t.origin("show", `usine/salvage/${run.id}/1:slow.txt`), "slow")
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "an issue Loop's Attempt without a change fails; a schedule Loop's succeeds without a pull request",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        const issueRun = makeRun("nothing")
        const idle = yield* t.executor.execute(recorder().request(issueRun, makeAttempt(issueRun, 1), policy()))
        assert.strictEqual(idle._tag, "Failed")
        if (idle._tag === "Failed") assert.strictEqual(idle.failure.reason, "the agent made no change")

        const tickRun = makeRun("nothing", { number: undefined })
        const tick = yield* t.executor.execute(recorder().request(tickRun, makeAttempt(tickRun, 1), policy({ kind: "schedule" })))
        assert.strictEqual(tick._tag, "Succeeded")
        if (tick._tag === "Succeeded") {
          assert.deepStrictEqual(tick.result.commits, [])
          assert.isUndefined(tick.result.pullRequestNumber)
          assert.isUndefined(tick.result.diff, "no commit, no figures")
        }
        assert.deepStrictEqual(yield* t.pulls, [])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})

describe("WorkerExecutor on pull requests", () => {
  it.scopedLive(
    "a pull-request Loop works on the pull request's head and pushes back to its branch, opening none",
    () =>
      Effect.gen(function* () {
        const t = yield* setup()
        yield* pushBranch(t, "feature")
        const pull = yield* t.sim.control.createPullRequest({ repo: REPOSITORY, title: "Feature", head: "feature" })
        const run = makeRun("edit", { number: pull.number, itemKey: itemKeyOf(REPOSITORY, pull.number) })
        const outcome = yield* t.executor.execute(recorder().request(run, makeAttempt(run, 1), policy({ kind: "pull_requests" })))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return
        assert.strictEqual(outcome.result.branch, "feature")
        assert.strictEqual(outcome.result.pullRequestNumber, pull.number)
        assert.strictEqual(outcome.result.pullRequestUrl, pull.html_url)
        assert.strictEqual(t.origin("rev-parse", "refs/heads/feature"), outcome.result.commits.at(-1))
        assert.strictEqual(t.origin("show", "feature:change.txt"), "feature", "built on the pull request's head")
        assert.strictEqual((yield* t.pulls).length, 1)
        assert.notInclude(t.branches().join(" "), "usine/")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "a pull request the agent opened itself is not the Run's: usine pushes the Run's branch and opens its own",
    () =>
      Effect.gen(function* () {
        const sim = yield* GitHubSim
        const agentAccount = yield* sim.control.createUser({ login: "agent-bot", permission: "write" })
        const selfPr = scriptedAgent("self-pr", {
          AGENT_PUSH_URL: sim.authenticatedCloneUrl(REPOSITORY, agentAccount.token),
          AGENT_TOKEN: agentAccount.token,
          AGENT_API: sim.url
        })
        // Its sandbox reaches GitHub because its Agent names it.
        const t = yield* setup({ agents: { "self-pr": { ...selfPr, network: [new URL(sim.url).host] } } })
        const run = makeRun("self-pr")
        const outcome = yield* t.executor.execute(recorder().request(run, makeAttempt(run, 1), policy()))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        if (outcome._tag !== "Succeeded") return
        const pulls = yield* t.pulls
        const branch = `usine/start-dev/1-${run.id.slice(0, 8)}`
        const own = pulls.find((p) => p.number === outcome.result.pullRequestNumber)
        assert.deepStrictEqual(pulls.map((p) => p.head.ref).sort(), ["agent/own", branch].sort())
        assert.strictEqual(own?.head.ref, branch)
        assert.strictEqual(outcome.result.branch, branch)
        assert.deepStrictEqual(t.branches().filter((b) => b.startsWith("usine/")), [`usine/start-dev/1-${run.id.slice(0, 8)}`])
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )

  it.scopedLive(
    "preparation: a missing harness binary and an unknown Agent are AgentFailures that say what to do; nothing is left behind",
    () =>
      Effect.gen(function* () {
        const t = yield* setup({ agents: { ghost: { harness: "codex", command: ["no-such-agent-cli"], env: { inherit: [], values: {} } } } })
        const run = makeRun("ghost")
        const log = recorder()
        const outcome = yield* t.executor.execute(log.request(run, makeAttempt(run, 1), policy()))
        assert.strictEqual(outcome._tag, "Failed")
        if (outcome._tag !== "Failed") return
        assert.strictEqual(outcome.failure._tag, "AgentFailure")
        assert.match(outcome.failure.reason, /^no-such-agent-cli is not installed or not on PATH on /)
        assert.strictEqual(log.rows.length, 1)
        const attempts = path.join(t.root, "attempts")
        assert.deepStrictEqual(fs.existsSync(attempts) ? fs.readdirSync(attempts) : [], [])

        const unknown = makeRun("nobody")
        const missing = yield* t.executor.execute(recorder().request(unknown, makeAttempt(unknown, 1), policy()))
        assert.strictEqual(missing._tag === "Failed" && missing.failure.reason, "no Agent named nobody is configured")

        // A Worker whose host cannot be reached: the machine failed, not the agent, so a retry may help.
        const ssh = yield* SshTransport.make({
          destination: "127.0.0.1",
          sshOptions: ["-p", "1", "-o", "ConnectTimeout=3", "-o", "UserKnownHostsFile=/dev/null"]
        })
        const remote = yield* WorkerExecutor.make({ ...t.executorOptions, workers: WorkerDirectory.of({ remote: { transport: ssh, root: "/tmp/usine-unreachable" } }) }).pipe(
          Effect.provideService(PullRequests, t.pullRequests)
        )
        const away = makeRun("edit")
        const unreachable = yield* remote.execute({ ...recorder().request(away, makeAttempt(away, 1), policy()), worker: "remote" })
        assert.strictEqual(unreachable._tag === "Failed" && unreachable.failure._tag, "InfraFailure")
        assert.include(unreachable._tag === "Failed" ? unreachable.failure.reason : "", "worker 127.0.0.1 is unreachable")
      }).pipe(Effect.provide(simLayer)),
    E2E_TIMEOUT
  )
})
