import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunView } from "@usine/board/BoardViews/runView"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { demoModelScripts } from "../src/demo/demoModelScripts"
import { PI_CLI } from "../src/demo/demoAgents"
import { BOARD_TOKEN, loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually, json } from "./support/http"
import { startUsine } from "./support/UsineProcess"
import { upIn, upWorld } from "./support/upWorld"
import { MODEL_KEY, type RealAgentWorld, realAgentWorld } from "./realAgents/RealAgentWorld"

const FIRST = "Operator here: keep the regression test short."
const SECOND = "Operator again, after the restart: mention the issue number in the commit."

/** A tool call that waits until the test lets it go (a file in the worktree), so a message surely lands mid-call. */
const waitFor = (name: string) => `while [ ! -f ${name} ]; do sleep 0.2; done; rm -f ${name}; echo ${name} seen`

/** Two slow tool calls (the daemon is killed and restarted during the second), then the demo's fix. */
const SCRIPT: ModelScript = {
  turns: [{ run: waitFor(".usine-go-1") }, { run: waitFor(".usine-go-2") }, ...demoModelScripts.fixPunctuation.turns]
}

/** Ends the tool call waiting for `name` in the Attempt's worktree. */
const release = (w: RealAgentWorld, attemptId: string, name: string) =>
  Effect.sync(() => writeFileSync(join(w.workspaces, "attempts", attemptId.replaceAll("/", "_"), "worktree", name), ""))

interface Intervened {
  readonly delivered: boolean
  readonly status: string
  readonly detail: string
}

const runView = (w: { readonly boardUrl: string }, runId: string) => board<RunView>(w.boardUrl, `/api/runs/${runId}`)

/** The Run's open Attempt once its transcript shows a call of `command`. */
const whenRunning = (w: { readonly boardUrl: string }, runId: string, command: string) =>
  eventually(
    `the agent runs ${command}`,
    Effect.map(runView(w, runId).pipe(Effect.orElseSucceed(() => undefined)), (view) =>
      Option.fromNullable(
        view?.transcript.lines.some((l) => l.kind === "tool_call" && l.text.includes(command))
          ? view.attempts.find((a) => a.outcome === "Open")?.id
          : undefined
      )
    ),
    90
  )

const intervene = (boardUrl: string, runId: string, attemptId: string, message: string) =>
  json<Intervened>(`${boardUrl.replace(/\/$/, "")}/runs/${runId}/intervene`, {
    method: "POST",
    headers: { authorization: `Bearer ${BOARD_TOKEN}` },
    body: { attemptId, message }
  })

/** Requests of the Run's model conversation whose body carries `text`. */
const requestsWith = (w: RealAgentWorld, text: string) => {
  const requests = w.models["steer"]?.requests ?? []
  return requests.filter((r) => r.turn !== undefined && JSON.stringify(r.body).includes(text))
}

describe("Intervene reaches the real Pi CLI mid-Attempt, also after a daemon restart", () => {
  it.scopedLive("a message during a slow tool call is acknowledged and in the next model request; after SIGKILL and restart a second one too", () =>
    Effect.gen(function* () {
      const w = yield* realAgentWorld({
        harness: "pi",
        command: [process.execPath, PI_CLI],
        stallMinutes: 2,
        scenarios: [{ name: "steer", title: "slugify keeps punctuation", script: SCRIPT }]
      })
      const run = yield* eventually("the Run opened", Effect.map(w.ledger.runs("steer").pipe(Effect.orElseSucceed(() => [])), (runs) => Option.fromNullable(runs[0])), 60)

      const attemptId = yield* whenRunning(w, run.id, ".usine-go-1")
      const first = yield* intervene(w.boardUrl, run.id, attemptId, FIRST)
      assert.deepStrictEqual([first.delivered, first.status], [true, "delivered"], first.detail)
      yield* release(w, attemptId, ".usine-go-1")

      // Killed while Pi waits in its second tool call; the session (Pi, its wrapper, the feeder) runs on.
      yield* whenRunning(w, run.id, ".usine-go-2")
      yield* w.usine.signal("SIGKILL")
      yield* w.usine.exit()
      const restarted = yield* startUsine(w.dir, ["up"], { USINE_TEST_MODEL_KEY: MODEL_KEY })
      const boardUrl = (yield* restarted.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      yield* restarted.waitFor(/msg="attempt 1 followed again on local"/)
      const again = yield* whenRunning({ boardUrl }, run.id, ".usine-go-2")
      assert.strictEqual(again, attemptId, "the restarted daemon follows the same Attempt")
      const second = yield* intervene(boardUrl, run.id, attemptId, SECOND)
      assert.deepStrictEqual([second.delivered, second.status], [true, "delivered"], second.detail)
      yield* release(w, attemptId, ".usine-go-2")

      const closed = yield* w.ledger.closedRun("steer", 120)
      const attempts = yield* w.ledger.attempts(run.id)
      assert.strictEqual(closed.state, "Succeeded", JSON.stringify(attempts))
      assert.strictEqual(attempts.length, 1, "one Attempt: the messages joined the running session")

      // The model received each message, in a later request of the same conversation.
      const requests = w.models["steer"]?.requests.filter((r) => r.turn !== undefined) ?? []
      const conversation = requests[0]?.conversation
      const withFirst = requestsWith(w, FIRST)
      const withSecond = requestsWith(w, SECOND)
      assert.isAbove(withFirst.length, 0, "the first message reached the model")
      assert.isAbove(withSecond.length, 0, "the message sent after the restart reached the model")
      assert.isTrue([...withFirst, ...withSecond].every((r) => r.conversation === conversation))
      assert.strictEqual(withFirst[0]?.index, 1, "the first message came with the request after the slow tool call")
      assert.strictEqual(withSecond[0]?.index, 2)

      // The transcript: each message is an operator row, followed by what became of it.
      const lines = (yield* runView({ boardUrl }, run.id)).transcript.lines
      const operatorRows = lines.filter((l) => l.kind === "operator").map((l) => l.text)
      assert.deepStrictEqual(operatorRows, [FIRST, SECOND])
      const notes = lines.filter((l) => l.kind === "system" && l.text.startsWith("operator message ")).map((l) => l.text)
      assert.deepStrictEqual(notes.map((t) => t.split(":")[0]), ["operator message delivered", "operator message delivered"])
      assert.strictEqual(lines.filter((l) => l.text === "pi accepted the operator's message").length, 2)
    }), 300_000)
})

describe("Intervene says so when the harness cannot deliver", () => {
  it.scopedLive("a command agent's message is queued in $USINE_INBOX, a Codex exec session refuses it: neither is delivered", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const issue = (title: string, label: string) =>
        Effect.promise(() => world.sim.control.createIssue({ repo: REPOSITORY, title, body: "See the title.", labels: [label] }))
      yield* Effect.promise(() => world.sim.control.createLabel({ repo: REPOSITORY, name: "codexish" }))
      yield* issue("slugify keeps punctuation", "ready-for-agent")
      yield* issue("slugify keeps punctuation, for codex", "codexish")
      // Codex's argv after its binary is `exec --json …`, which `sh -c` takes as its own `$0` and arguments.
      const codexish = `  codexish:\n    harness: codex\n    command: [sh, -c, "sleep 20"]\n`
      const { url } = yield* upIn(world, {
        loops: [
          loop("inbox", "ready-for-agent", "none"),
          loop("codexish", "codexish", "none").replace("agent: demo", "agent: codexish")
        ],
        agentDelay: 20,
        edit: (yaml) => yaml.replace("agents:\n", `agents:\n${codexish}`).replace("  local:\n", "  local:\n    max_concurrent_attempts: 2\n")
      })
      const openAttempt = (name: string) =>
        eventually(
          `the ${name} Run runs`,
          Effect.gen(function* () {
            const { page } = yield* board<{ readonly page: { readonly runs: ReadonlyArray<{ readonly id: string; readonly loop: string }> } }>(url, "/api/runs")
            const run = page.runs.find((r) => r.loop === name)
            if (run === undefined) return Option.none()
            const view = yield* runView({ boardUrl: url }, run.id)
            return Option.map(Option.fromNullable(view.attempts.find((a) => a.outcome === "Open")), (a) => ({ runId: run.id, attemptId: a.id }))
          }).pipe(Effect.orElseSucceed(() => Option.none())),
          60
        )
      const send = (name: string) =>
        Effect.gen(function* () {
          const { attemptId, runId } = yield* openAttempt(name)
          const answer = yield* eventually(
            `the ${name} session takes a message`,
            intervene(url, runId, attemptId, "use the fixture").pipe(Effect.map(Option.some), Effect.orElseSucceed(() => Option.none())),
            30
          )
          return { runId, answer }
        })

      const inbox = yield* send("inbox")
      assert.deepStrictEqual([inbox.answer.delivered, inbox.answer.status], [false, "queued"])
      assert.match(inbox.answer.detail, /^queued in \$USINE_INBOX \(.*inbox\/0001\.md\)/)
      const codex = yield* send("codexish")
      assert.deepStrictEqual([codex.answer.delivered, codex.answer.status], [false, "refused"])
      assert.strictEqual(codex.answer.detail, "codex exec cannot take input mid-turn (its stdin is the task, read to its end)")

      const notes = (runId: string) =>
        eventually(
          "the transcript shows the message and what became of it",
          Effect.map(runView({ boardUrl: url }, runId), (view) => {
            const lines = view.transcript.lines
            const at = lines.findIndex((l) => l.kind === "operator" && l.text === "use the fixture")
            return at < 0 ? Option.none() : Option.fromNullable(lines[at + 1]?.text)
          }),
          30
        )
      assert.match(yield* notes(inbox.runId), /^operator message queued: queued in \$USINE_INBOX/)
      assert.match(yield* notes(codex.runId), /^operator message refused: codex exec cannot take input mid-turn/)
    }), 180_000)
})
