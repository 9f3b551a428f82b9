import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { PI_CLI } from "../src/demo/demoAgents"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"
import { intervene, runView, steeredThroughRestart } from "./realAgents/steeredThroughRestart"

describe("Intervene reaches the real Pi CLI mid-Attempt, also after a daemon restart", () => {
  it.scopedLive(
    "a message during a slow tool call is queued by Pi and in the next model request; after SIGKILL and restart a second one too",
    () => steeredThroughRestart({ harness: "pi", command: [process.execPath, PI_CLI], acknowledged: "pi accepted the operator's message", midToolCall: "queued" }),
    300_000
  )
})

describe("Intervene says so when the harness cannot deliver", () => {
  it.scopedLive("a command agent's message is queued in $USINE_INBOX, a Codex session that never answers has it queued: neither is delivered", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const issue = (title: string, label: string) =>
        Effect.promise(() => world.sim.control.createIssue({ repo: REPOSITORY, title, body: "See the title.", labels: [label] }))
      yield* Effect.promise(() => world.sim.control.createLabel({ repo: REPOSITORY, name: "codexish" }))
      yield* issue("slugify keeps punctuation", "ready-for-agent")
      yield* issue("slugify keeps punctuation, for codex", "codexish")
      // Codex's argv after its binary is `app-server`, which `sh -c` takes as its own `$0`: nothing reads the feed.
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
      assert.deepStrictEqual([codex.answer.delivered, codex.answer.status], [false, "queued"])
      assert.match(codex.answer.detail, /^queued for the next turn: written to the agent's input, not yet acknowledged by it/)

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
      assert.match(yield* notes(codex.runId), /^operator message queued: queued for the next turn/)
    }), 180_000)
})
