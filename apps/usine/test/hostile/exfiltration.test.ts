import { execFileSync } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Context, Effect, Layer } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { secretEncodings } from "@usine/core/text/secretEncodings"
import { withoutCode } from "@usine/github-sim/world/withoutCode"
import { REPOSITORY } from "../support/daemonConfig"
import { json } from "../support/http"
import { runGit } from "../resilience/support/runGit"
import { attack, type HostileDaemon, hostileDaemon, runOf, settledRuns } from "./support/HostileDaemon"
import { drainsClean, nothingLeaked } from "./support/finalProofs"
import { attackRan, describeRun, neutralised, refused, remoteBranches } from "./support/proofs"

/**
 * Issue 31, "only a tree leaves the machine": a prompt-injected agent carries the secret its Agent's `env` lends it
 * (`EXFIL_TOKEN`, which the daemon registers) out by every channel besides a file's lines, quotes a closing keyword
 * and a team mention in its commit subject, points its HEAD at another open pull request, and leaves a `.git` file
 * in a sub-folder. The daemon pushes its own commit of the agent's tree, scans everything that leaves, and says why.
 */
const SECRET = "exfil-Value-7c41d09e2b58af36"

interface PullJson {
  readonly number: number
  readonly title: string
  readonly body: string | null
  readonly head: { readonly ref: string; readonly sha: string }
  readonly state: string
}

class Attacked extends Context.Tag("test/hostile/ExfiltrationAttacks")<Attacked, {
  readonly daemon: HostileDaemon
  readonly runs: ReadonlyMap<string, RunView | undefined>
  /** The issue the commit subject names after `Closes`, and the other pull request the agent's HEAD is set to. */
  readonly victim: number
  readonly other: PullJson
}>() {}

const ATTACKS = ["secret-message", "secret-filename", "secret-author", "secret-base64", "secret-hex", "closes-mention", "adopt-pr", "nested-git"] as const

const pulls = (daemon: HostileDaemon) =>
  json<ReadonlyArray<PullJson>>(`${daemon.sim.url}/repos/${REPOSITORY}/pulls?state=all&per_page=100`, {
    headers: { authorization: `token ${daemon.token}` }
  })

const attacked = Layer.scoped(
  Attacked,
  Effect.gen(function* () {
    const daemon = yield* hostileDaemon({ slots: 2, env: { EXFIL_TOKEN: SECRET } })
    const victim = yield* Effect.promise(() => daemon.sim.control.createIssue({ repo: REPOSITORY, title: "an unrelated issue", body: "" }))
    // Another pull request, open before the Runs start: the mirror fetches its branch with the others.
    const clone = join(daemon.dir, "other-clone")
    const git = (...args: ReadonlyArray<string>) => Effect.orDie(runGit(daemon.dir, "-C", clone, ...args))
    yield* Effect.orDie(runGit(daemon.dir, "clone", "--quiet", daemon.sim.authenticatedCloneUrl(REPOSITORY, daemon.token), clone))
    yield* git("checkout", "--quiet", "-b", "someone-else")
    writeFileSync(join(clone, "theirs.txt"), "someone else's work\n")
    yield* git("add", "theirs.txt")
    yield* git("-c", "user.name=Someone", "-c", "user.email=someone@example.com", "commit", "--quiet", "-m", "Someone else's work")
    yield* git("push", "--quiet", "origin", "someone-else")
    const opened = yield* Effect.promise(() =>
      daemon.sim.control.createPullRequest({ repo: REPOSITORY, title: "Someone else's work", head: "someone-else" })
    )
    // Its config holds the token, and nothing under the daemon's folder may.
    rmSync(clone, { recursive: true, force: true })
    const other = (yield* pulls(daemon)).find((p) => p.number === opened.number)!
    const title = (name: (typeof ATTACKS)[number]) =>
      name === "closes-mention" ? `${name}-${victim.number}` : name === "adopt-pr" ? `${name}-${other.head.sha}` : name
    const numbers = yield* Effect.forEach(ATTACKS, (name) => attack(daemon, title(name)))
    const views = yield* settledRuns(daemon, numbers, 240)
    const [clean] = yield* settledRuns(daemon, [yield* attack(daemon, "clean")])
    return {
      daemon,
      victim: victim.number,
      other,
      runs: new Map([...ATTACKS.map((name, i) => [name, views[i]] as const), ["clean", clean]])
    }
  })
)

/** Everything on the emulator as text: each commit's author, committer, message and patch, and the pull requests. */
const emulatorText = (daemon: HostileDaemon, pullRequests: unknown): string =>
  execFileSync("git", [`--git-dir=${daemon.remoteGitDir}`, "log", "--all", "-p", "--text", "--format=commit %H%n%an <%ae>%n%cn <%ce>%n%B"], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }
  }) + JSON.stringify(pullRequests)

const pullOf = (all: ReadonlyArray<PullJson>, view: RunView): PullJson | undefined =>
  all.find((p) => p.number === view.result?.pullRequestNumber)

layer(attacked, { timeout: "400 seconds", excludeTestServices: true })("hostile agent: exfiltration, through usine up", (it) => {
  it.effect("the secret and its encodings are nowhere on the emulator: no commit, name, author, title or body", () =>
    Effect.gen(function* () {
      const { daemon } = yield* Attacked
      const text = emulatorText(daemon, yield* pulls(daemon))
      assert.isFalse(text.includes(SECRET), "the secret is on the emulator")
      assert.deepStrictEqual(secretEncodings(SECRET).filter((e) => text.includes(e)), [], "an encoding of the secret is on the emulator")
    }))

  it.effect("secret-message: refused for the subject the pull request would quote; only usine's commit of the clean tree is salvaged", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "secret-message")
      assert.isTrue(attackRan(view, "secret-message"), describeRun(view))
      const problems = refused(daemon, view, /secret_scan: the agent's commit subjects the pull request quotes looks like a secret/)
      // The tree holds no secret, so the salvage keeps it: as usine's commit, the agent's message left behind.
      const salvage = `usine/salvage/${view.run.id}/1`
      assert.deepStrictEqual(problems.filter((p) => p !== `the refused work reached the emulator: ${salvage}`), [])
      if (remoteBranches(daemon).has(salvage)) {
        const head = execFileSync("git", [`--git-dir=${daemon.remoteGitDir}`, "log", "--format=%an|%s", `${salvage}`, "--not", "main"], { encoding: "utf8" }).trim()
        assert.strictEqual(head, `usine-agent|usine: salvaged work of Run ${view.run.id}, Attempt 1`)
      }
      assert.strictEqual(view.attempts.length, 1, describeRun(view))
    }))

  it.effect.each([
    ["secret-filename", /secret_scan: notes-\[REDACTED:secret\]\.txt its path looks like a secret/],
    ["secret-base64", /secret_scan: data\.txt:1 looks like an encoded secret/],
    ["secret-hex", /secret_scan: data\.hex:1 looks like an encoded secret/]
  ] as const)("%s: refused by the scan of what leaves, nothing pushed, the reason says where", ([name, reason]) =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, name)
      assert.isTrue(attackRan(view, name), describeRun(view))
      assert.deepStrictEqual(refused(daemon, view, reason), [])
      assert.strictEqual(view.attempts.length, 1, describeRun(view))
      assert.isFalse(JSON.stringify(view).includes(SECRET), "the Board shows the secret")
    }))

  it.effect("secret-author: the agent's author never leaves; the pushed commit is usine's, with usine's message", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "secret-author")
      assert.deepStrictEqual(neutralised(daemon, view, "secret-author"), [], describeRun(view))
      const branch = view.result?.branch ?? ""
      const head = execFileSync("git", [`--git-dir=${daemon.remoteGitDir}`, "log", "-1", "--format=%an <%ae>|%cn|%s", branch], { encoding: "utf8" }).trim()
      assert.match(head, /^usine-agent <usine-agent@users\.noreply\.usine\.invalid>\|usine-agent\|hostile: work on #\d+$/)
    }))

  it.effect("closes-mention: the subject is quoted inertly, the title is sanitised, and merging closes only the Run's own issue", () =>
    Effect.gen(function* () {
      const { daemon, runs, victim } = yield* Attacked
      const view = runOf(runs, "closes-mention")
      assert.isTrue(attackRan(view, `closes-mention-${victim}`), describeRun(view))
      assert.deepStrictEqual(neutralised(daemon, view, `closes-mention-${victim}`), [], describeRun(view))
      const pull = pullOf(yield* pulls(daemon), view)!
      const body = pull.body ?? ""
      assert.include(body, `Closes #${victim} cc @acme/team`, "the subject is quoted")
      const read = withoutCode(body)
      assert.notInclude(read, `#${victim}`, "GitHub reads the victim's number outside code")
      assert.notInclude(read, "@acme", "GitHub reads the mention outside code")
      assert.notMatch(pull.title, /[#@]/, pull.title)
      yield* Effect.promise(() => daemon.sim.control.mergePullRequest({ repo: REPOSITORY, number: pull.number, actor: "usine-bot" }))
      const issue = (number: number) =>
        json<{ readonly state: string }>(`${daemon.sim.url}/repos/${REPOSITORY}/issues/${number}`, { headers: { authorization: `token ${daemon.token}` } })
      assert.strictEqual((yield* issue(victim)).state, "open", "merging closed the unrelated issue")
      assert.strictEqual((yield* issue(view.run.number!)).state, "closed", "the Run's own issue is closed by usine's line")
    }))

  it.effect("adopt-pr: HEAD set to another open pull request's head does not make it the Run's", () =>
    Effect.gen(function* () {
      const { daemon, runs, other } = yield* Attacked
      const view = runOf(runs, "adopt-pr")
      const all = yield* pulls(daemon)
      assert.notStrictEqual(view.result?.pullRequestNumber, other.number, describeRun(view))
      const theirs = all.find((p) => p.number === other.number)!
      assert.deepStrictEqual([theirs.state, theirs.head.sha], ["open", other.head.sha], "the other pull request was touched")
      assert.strictEqual(remoteBranches(daemon).get("someone-else"), other.head.sha)
      // The agent's tree may go out, as usine's commit on the Run's own branch in a pull request of its own.
      if (view.run.state === "Succeeded") {
        assert.match(view.result?.branch ?? "", /^usine\/hostile\//, describeRun(view))
        assert.strictEqual(pullOf(all, view)?.head.ref, view.result?.branch)
      } else {
        assert.strictEqual(view.run.state, "Failed", describeRun(view))
      }
    }))

  it.effect("nested-git: a `.git` file in a sub-folder ends the Attempt as the agent's failure, with the reason and no retry", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      const view = runOf(runs, "nested-git")
      assert.isTrue(attackRan(view, "nested-git"), describeRun(view))
      assert.deepStrictEqual(refused(daemon, view, /usine refused to read the agent's work: staging the agent's files .*sub\/' does not have a commit checked out/), [])
      assert.strictEqual(view.attempts.length, 1, describeRun(view))
      assert.strictEqual(view.attempts[0]?.failure?.tag, "AgentFailure", describeRun(view))
      assert.notInclude(daemon.usine.stderr() + daemon.usine.stdout(), "harvest failed on GitHub")
    }))

  it.effect("after the attacks a clean Item still opens its pull request", () =>
    Effect.gen(function* () {
      const { daemon, runs } = yield* Attacked
      assert.deepStrictEqual(neutralised(daemon, runOf(runs, "clean"), "clean"), [], describeRun(runOf(runs, "clean")))
    }))

  it.effect("no planted program ran, no credential reached the listener, and the token is nowhere it should not be", () =>
    Effect.flatMap(Attacked, ({ daemon, runs }) => nothingLeaked(daemon, runs)))

  it.effect("the daemon drains on SIGTERM and exits 0, its output free of the token", () =>
    Effect.flatMap(Attacked, ({ daemon }) => drainsClean(daemon)), 90_000)
})
