import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { BOARD_TOKEN, REPOSITORY } from "../support/daemonConfig"
import { scopedDir } from "../support/scopedSim"
import { checkLedger, checkNoLostEvent } from "./support/checkInvariants"
import { drainDaemon } from "./support/drainDaemon"
import { FaultTable } from "./support/FaultTable"
import { queryLedger, readLedger } from "./support/LedgerSnapshot"
import { agent } from "./support/resilienceConfig"
import { writeResilienceConfig } from "./support/writeResilienceConfig"
import { scopedWorld } from "./support/ResilienceWorld"
import { runGit } from "./support/runGit"
import { startDaemon } from "./support/startDaemon"
import { waitFor } from "./support/waitUntil"

const CANARY = "PWNED"
const HOSTILE_BRANCH = "hostile/$(touch${IFS}PWNED);echo${IFS}x"
const DEPENDABOT_BRANCH = "dependabot/npm_and_yarn/@types/node-20.1.0"
const shell = `$(touch ${CANARY}) \`touch ${CANARY}\` ; touch ${CANARY} && echo ' " | cat /etc/passwd > ${CANARY} #`

/** Issue texts written to break a shell, a path, a parser, a terminal or a page, and one of 1 MiB. */
const HOSTILE: ReadonlyArray<{ readonly name: string; readonly title: string; readonly body: string; readonly labels?: ReadonlyArray<string> }> = [
  { name: "shell metacharacters", title: shell, body: `${shell}\n$((1/0)) \${IFS} !! $HOME`, labels: [`$(touch ${CANARY})`] },
  { name: "path traversal", title: "../../../../etc/passwd", body: "../../.git/config\n/dev/zero\n..\\..\\windows", labels: ["../../escape"] },
  { name: "unicode and bidi overrides", title: "\u202Egnp.exe\u202C \u200B\u2066RTL\u2069 😀 中文 Z̷̢a̵l̸g̶o", body: "\uFEFF\u202Dhidden\u202C \u0000 nul \uD83D\uDE00 \u00e9\u0301", labels: ["🔥 urgent"] },
  { name: "terminal escapes", title: "\u001b[31mred\u001b[0m \u0007bell \r\n forged log line level=ERROR", body: "\u001b]0;title\u0007\u001b[2J" },
  { name: "markup", title: "<script>alert(1)</script><img src=x onerror=alert(2)>", body: "<!-- hidden -->{{ item.title }} {% raw %}liquid{% endraw %} ${{ secrets.TOKEN }}" },
  { name: "1 MiB body", title: "a body of one mebibyte", body: "0123456789abcdef".repeat(65_536) }
]

/** Every file or folder under `root` named as the canary (branch names may carry the word, as refs). */
const canaries = (root: string): ReadonlyArray<string> =>
  readdirSync(root, { recursive: true, encoding: "utf8" }).filter((name) => name.split("/").pop() === CANARY)

describe("resilience: hostile input from GitHub", () => {
  it.scopedLive("hostile titles, bodies, labels and a hostile branch name flow through polling, the prompt and git without harm", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const world = yield* scopedWorld
      const ledgerFile = join(dir, "state", "ledger.db")
      const table = new FaultTable("hostile input")
      yield* writeResilienceConfig(dir, world, {
        agents: { quick: agent("ok", { arg: 100 }) },
        workers: { local: { root: join(dir, "workspaces"), slots: 3 } },
        loops: [
          { name: "hostile", label: "go", agent: "quick", prompt: "Work on #{{ item.number }}: {{ item.title }}\n{{ item.body }}" },
          { name: "hostile-pr", on: "pull_requests", label: "go-pr", agent: "quick", prompt: "Review {{ item.title }} on {{ item.headRef }}" }
        ]
      })
      // Pull requests from branches pushed with real git: one named as a shell command, one as Dependabot names them.
      const clone = join(dir, "clone")
      yield* Effect.orDie(runGit(dir, "clone", "--quiet", world.sim.authenticatedCloneUrl(REPOSITORY, world.token), clone))
      const pullFrom = (branch: string, title: string) =>
        Effect.gen(function* () {
          yield* Effect.orDie(runGit(clone, "checkout", "--quiet", "-B", branch, "origin/main"))
          writeFileSync(join(clone, "change.txt"), `a change on ${branch}\n`)
          yield* Effect.orDie(runGit(clone, "add", "-A"))
          yield* Effect.orDie(runGit(clone, "commit", "--quiet", "-m", "a change"))
          yield* Effect.orDie(runGit(clone, "push", "--quiet", "origin", branch))
          const pull = yield* world.call(() => world.control.createPullRequest({ repo: REPOSITORY, title, head: branch, body: title }))
          yield* world.call(() => world.control.addLabels({ repo: REPOSITORY, number: pull.number, labels: ["go-pr"] }))
          return pull
        })
      const hostilePull = yield* pullFrom(HOSTILE_BRANCH, shell)
      table.inject("pull request whose head branch is a shell command")
      const dependabotPull = yield* pullFrom(DEPENDABOT_BRANCH, "Bump @types/node from 20.0.0 to 20.1.0")
      table.inject("pull request from a Dependabot branch (with @)")

      const daemon = yield* startDaemon(dir)
      const matching = new Map<number, ReadonlyArray<string>>()
      const numbers = new Map<string, number>()
      for (const hostile of HOSTILE) {
        const issue = yield* world.call(() =>
          world.control.createIssue({ repo: REPOSITORY, title: hostile.title, body: hostile.body, labels: ["go", ...(hostile.labels ?? [])] })
        )
        numbers.set(hostile.name, issue.number)
        matching.set(issue.number, ["hostile"])
        table.inject(`issue with ${hostile.name}`)
      }
      const runFor = (number: number) => readLedger(ledgerFile).runs.find((r) => r.number === number)
      yield* waitFor(() => [...matching.keys(), hostilePull.number, dependabotPull.number].every((n) => ["Succeeded", "Failed"].includes(runFor(n)?.state ?? "")), "120 seconds", "250 millis")

      const ledger = readLedger(ledgerFile)
      table.record(checkNoLostEvent(ledger, REPOSITORY, matching))
      for (const [name, number] of numbers) table.assert(`a Run for the issue with ${name} succeeds`, runFor(number)?.state === "Succeeded", `the Run is ${runFor(number)?.state}`)
      const pullRun = (number: number) => ledger.attempts.filter((a) => a.runId === runFor(number)?.id).map((a) => a.outcome)
      const refused = pullRun(hostilePull.number)
      table.assert("a branch named as a shell command is refused with a clear error, not retried", refused.length === 1 && refused[0]?.failure?._tag === "AgentFailure" && /not a git ref/.test(refused[0]?.failure?.reason ?? ""), JSON.stringify(refused))
      const head = yield* world.read<{ head: { sha: string } }>(`/repos/${REPOSITORY}/pulls/${dependabotPull.number}`)
      table.assert("the agent's work goes back to a Dependabot branch", runFor(dependabotPull.number)?.state === "Succeeded" && head.head.sha !== dependabotPull.head.sha, `Run ${runFor(dependabotPull.number)?.state}: ${JSON.stringify(pullRun(dependabotPull.number))}`)

      const big = runFor(numbers.get("1 MiB body") ?? 0)
      const seen = queryLedger(ledgerFile, "SELECT t.text FROM usine_transcript_rows t JOIN usine_attempts a ON a.id = t.attempt_id WHERE a.run_id = ? AND t.text LIKE 'mode ok, prompt of %'", big?.id ?? "")
      const bytes = Number(/prompt of (\d+) bytes/.exec(String(seen[0]?.["text"] ?? ""))?.[1] ?? 0)
      table.assert("the 1 MiB body reaches the agent's prompt whole", bytes >= 1_048_576, `the agent read ${bytes} characters`)
      const found = [...canaries(dir), ...canaries(world.sim.dataDir)]
      table.assert("no shell ran a command from GitHub text (no PWNED file anywhere)", found.length === 0, found.join(", "))
      const log = daemon.usine.stdout()
      table.assert("no control character from GitHub text reaches the daemon's log", !/[\u0007\u001b\u202e]/.test(log), "the log holds a raw control character")

      const markup = runFor(numbers.get("markup") ?? 0)
      const page = yield* Effect.promise(() =>
        fetch(`${daemon.board}runs/${markup?.id}`, { headers: { authorization: `Bearer ${BOARD_TOKEN}` } }).then(async (r) => ({ status: r.status, text: await r.text() }))
      )
      table.assert("the Run page shows the task, its markup inert", page.status === 200 && page.text.includes('data-testid="run-task"') && !/<script>alert|<img src=x/i.test(page.text), `${page.status}`)

      for (const result of checkLedger(ledger, yield* world.pulls)) table.record(result)
      yield* drainDaemon(daemon, dir, table, { label: "SIGTERM once idle" })
      table.print()
      assert.deepStrictEqual(table.violations(), [])
    }), 240_000)
})
