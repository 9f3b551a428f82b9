import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { runGit } from "@usine/github-sim/git/runGit"
import { AGENT, BOARD_TOKEN, SAMPLE_REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

const EXAMPLE = readFileSync(new URL("../../../usine.yaml.example", import.meta.url), "utf8")

/** A second repository, outside the `acme/*` filter of the example's first Loop. */
const OTHER = "other/gadgets"

/**
 * Replaces `from` in `text`, which must occur exactly once: when the example changes under this test, the test says
 * which edit no longer applies instead of running a config it did not mean to.
 */
const replaceOnce = (text: string, from: string | RegExp, to: string) => {
  const matches = typeof from === "string" ? text.split(from).length - 1 : [...text.matchAll(new RegExp(from, "gm"))].length
  if (matches !== 1) throw new Error(`usine.yaml.example: expected one ${String(from)}, found ${matches}`)
  return text.replace(from, to)
}

/**
 * The example as a user runs it, with only what ties it to this machine changed: the Board's port, the Worker's
 * folder, the Agents (the demo's scripted agent under the example's names, in place of Codex and a lint script), and
 * a second repository. The token, the API URL and the Board token come through the environment variables the example
 * reads. Its Loops are kept byte for byte.
 */
const exampleFor = (port: number, workspaces: string) => {
  const agent = `[${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]`
  let yaml = replaceOnce(EXAMPLE, "  listen: 127.0.0.1:8787\n", `  listen: 127.0.0.1:${port}\n`)
  yaml = replaceOnce(yaml, /^agents:\n[\s\S]*?(?=^# Workers)/m, `agents:\n  codex: {harness: command, command: ${agent}}\n  lint-fixer: {harness: command, command: ${agent}}\n\n`)
  yaml = replaceOnce(yaml, /^    root: ~\/\.usine\/workspaces\n/m, `    root: ${JSON.stringify(workspaces)}\n`)
  yaml = replaceOnce(yaml, "repositories:\n  - acme/widgets\n", `repositories:\n  - acme/widgets\n  - ${OTHER}\n`)
  return yaml
}

const loopsOf = (yaml: string) => [...yaml.slice(yaml.indexOf("\nloops:")).matchAll(/^  - name: (\S+)$/gm)].map((m) => m[1]!)

// Asynchronous: the emulator answers git in this very process.
const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Effect.map(runGit(["-C", cwd, "-c", "user.name=Ada", "-c", "user.email=ada@example.com", ...args]), (out) => out.trim())

interface RunsJson {
  readonly page: {
    readonly runs: ReadonlyArray<{
      readonly id: string
      readonly loop: string
      readonly repository: string
      readonly number?: number
      readonly state: string
    }>
  }
}

/** The weekday and time of `at` in Paris, as the example's cron reads them. */
const paris = (at: Date) => {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/Paris",
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23"
  }).formatToParts(at)
  const part = (type: string) => parts.find((p) => p.type === type)?.value
  return { weekday: part("weekday"), time: `${part("hour")}:${part("minute")}` }
}

describe("usine up on usine.yaml.example", () => {
  it.scopedLive("each of the example's Loops fires on an Item built for it, and only there", () =>
    Effect.gen(function* () {
      const { dir, sim, token, port } = yield* upWorld
      yield* Effect.promise(() => sim.control.createRepository({ owner: "other", name: "gadgets", seedDirectory: SAMPLE_REPOSITORY }))

      // start-dev: an open issue labelled ready-for-agent, and two it must pass over.
      const open = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: "acme/widgets", title: "slugify keeps punctuation", body: "Hello, World!", labels: ["ready-for-agent"] })
      )
      const closed = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: "acme/widgets", title: "An old one", body: "Done.", labels: ["ready-for-agent"], state: "closed" })
      )
      const elsewhere = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: OTHER, title: "Not an acme repository", body: "Hello", labels: ["ready-for-agent"] })
      )
      // review-pr: a pull request labelled ready-for-review, on a branch of its own.
      const clone = join(dir, "clone")
      yield* git(dir, "clone", "-q", sim.authenticatedCloneUrl("acme/widgets", token), clone)
      yield* git(clone, "checkout", "-q", "-b", "touch-readme")
      writeFileSync(join(clone, "README.md"), "# slugger\n\nSlugs for titles.\n")
      yield* git(clone, "commit", "-q", "-am", "Describe slugger")
      yield* git(clone, "push", "-q", "origin", "touch-readme")
      const pull = yield* Effect.promise(() =>
        sim.control.createPullRequest({ repo: "acme/widgets", head: "touch-readme", title: "Describe slugger", body: "README only." })
      )
      yield* Effect.promise(() => sim.control.addLabels({ repo: "acme/widgets", number: pull.number, labels: ["ready-for-review"] }))

      const yaml = exampleFor(port, join(dir, "workspaces"))
      writeFileSync(join(dir, "usine.yaml"), yaml)
      const check = yield* startUsine(dir, ["check"], { GITHUB_TOKEN: token, GITHUB_API_URL: sim.url, USINE_BOARD_TOKEN: BOARD_TOKEN })
      assert.strictEqual(yield* check.exit("60 seconds"), 0, `usine check passes the example:\n${check.stdout()}${check.stderr()}`)
      const usine = yield* startUsine(dir, ["up"], { GITHUB_TOKEN: token, GITHUB_API_URL: sim.url, USINE_BOARD_TOKEN: BOARD_TOKEN })
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""

      const loops = loopsOf(EXAMPLE)
      assert.deepStrictEqual(loops, ["start-dev", "review-pr", "nightly-lint"], "a Loop added to the example needs an Item here")
      // One Run for each Loop on each Item it is for: start-dev on the open acme issue, review-pr on the pull request,
      // nightly-lint once in each repository (it has no filter).
      const expected = [
        `start-dev acme/widgets#${open.number}`,
        `review-pr acme/widgets#${pull.number}`,
        "nightly-lint acme/widgets",
        `nightly-lint ${OTHER}`
      ].sort()
      const keyOf = (r: RunsJson["page"]["runs"][number]) => `${r.loop} ${r.repository}${r.number === undefined ? "" : `#${r.number}`}`
      const runs = yield* eventually(
        "a Run of every Loop",
        Effect.map(board<RunsJson>(url, "/api/runs"), (json) =>
          Option.liftPredicate(json.page.runs, (all) => expected.every((key) => all.some((r) => keyOf(r) === key)))),
        90
      )
      // The first poll cycle, which saw every Item, has ended: nothing else fired.
      yield* eventually(
        "a poll cycle ended",
        Effect.map(
          Effect.promise(() => fetch(`${url}metrics`, { headers: { authorization: `Bearer ${BOARD_TOKEN}` } }).then((r) => r.text())),
          (text) => Option.liftPredicate(text, (t) => Number(/^usine_poll_cycle_duration_seconds_count(?:\{[^}]*\})? (\d+)/m.exec(t)?.[1] ?? 0) >= 1)
        ),
        60
      )
      const after = yield* board<RunsJson>(url, "/api/runs")
      assert.deepStrictEqual(after.page.runs.map(keyOf).sort(), expected, "the closed issue and the other/gadgets issue open no start-dev Run")
      assert.notInclude(after.page.runs.map(keyOf).join(), `#${closed.number} `)
      assert.isFalse(after.page.runs.some((r) => r.repository === OTHER && r.number === elsewhere.number))

      const byKey = (key: string) => runs.find((r) => keyOf(r) === key)!
      assert.strictEqual(byKey(`start-dev acme/widgets#${open.number}`).state, "Waiting", "start-dev asks for approval first")
      const startTask = JSON.stringify(yield* board(url, `/api/runs/${byKey(`start-dev acme/widgets#${open.number}`).id}`))
      assert.include(startTask, `Implement issue #${open.number} of acme/widgets`)
      assert.include(startTask, "slugify keeps punctuation")
      const reviewTask = JSON.stringify(yield* board(url, `/api/runs/${byKey(`review-pr acme/widgets#${pull.number}`).id}`))
      assert.include(reviewTask, `Review pull request #${pull.number} in acme/widgets`)

      const lintTask = JSON.stringify(yield* board(url, `/api/runs/${byKey("nightly-lint acme/widgets").id}`))
      const tick = /\(tick (\d{4}-\d\d-\d\dT[\d:.]+Z)\)/.exec(lintTask)?.[1]
      assert(tick !== undefined, `the lint prompt names its tick: ${lintTask.slice(0, 400)}`)
      const at = new Date(tick)
      const local = paris(at)
      assert.strictEqual(local.time, "03:00", `${tick} is 03:00 in Paris`)
      assert.include(["Mon", "Tue", "Wed", "Thu", "Fri"], local.weekday, `${tick} is a weekday`)
      const age = Date.now() - at.getTime()
      assert(age >= 0 && age <= 73 * 3600_000, `${tick} is the latest weekday 03:00 before now`)
    }), 240_000)
})
