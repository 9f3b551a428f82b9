import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { RunView } from "@usine/board/BoardViews/runView"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { demoModelScripts } from "../../src/demo/demoModelScripts"
import { BOARD_TOKEN } from "../support/daemonConfig"
import { board, eventually, json } from "../support/http"
import { startUsine } from "../support/UsineProcess"
import { MODEL_KEY, type RealAgentWorld, realAgentWorld } from "./RealAgentWorld"

/** The real CLI under test and the row its acknowledgment of an operator message makes. */
interface SteeredCli {
  readonly harness: "pi" | "claude" | "codex"
  readonly command: ReadonlyArray<string>
  readonly agentEnv?: Readonly<Record<string, string>>
  readonly acknowledged: string
  /**
   * What Intervene answers while the CLI is in a tool call: `queued` for a CLI that takes the message into its
   * conversation only after the call (Pi queues it as steering, Claude Code echoes it once taken; ADR 0093).
   */
  readonly midToolCall: "delivered" | "queued"
}

const FIRST = "Operator here: keep the regression test short."
const SECOND = "Operator again, after the restart: mention the issue number in the commit."

/** A tool call that waits until the test lets it go (a file in the worktree), so a message surely lands mid-call. */
const waitFor = (name: string) => `while [ ! -f ${name} ]; do sleep 0.2; done; rm ${name}; echo ${name} seen`

/** Two slow tool calls (the daemon is killed and restarted during the second), then the demo's fix. */
const SCRIPT: ModelScript = {
  turns: [{ run: waitFor(".usine-go-1") }, { run: waitFor(".usine-go-2") }, ...demoModelScripts.fixPunctuation.turns]
}

/** Ends the tool call waiting for `name` in the Attempt's worktree. */
export const release = (w: RealAgentWorld, attemptId: string, name: string) =>
  Effect.sync(() => writeFileSync(join(w.workspaces, "attempts", attemptId.replaceAll("/", "_"), "worktree", name), ""))

interface Intervened {
  readonly delivered: boolean
  readonly status: string
  readonly detail: string
}

export const runView = (w: { readonly boardUrl: string }, runId: string) => board<RunView>(w.boardUrl, `/api/runs/${runId}`)

/** The Run's open Attempt once its transcript shows a call of `command`. */
export const whenRunning = (w: { readonly boardUrl: string }, runId: string, command: string) =>
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

export const intervene = (boardUrl: string, runId: string, attemptId: string, message: string) =>
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

/**
 * Through \`usine up\`, the real CLI on model-sim: a message sent during a slow tool call is acknowledged and reaches
 * the model in the next request of the same conversation; after a SIGKILL of the daemon and a restart mid-Attempt, a
 * second one too; one Attempt, one pull request, and each message an operator row followed by what became of it.
 */
export const steeredThroughRestart = (cli: SteeredCli) =>
  Effect.gen(function* () {
    const w = yield* realAgentWorld({
      harness: cli.harness,
      command: cli.command,
      ...(cli.agentEnv === undefined ? {} : { agentEnv: cli.agentEnv }),
      stallMinutes: 2,
      scenarios: [{ name: "steer", title: "slugify keeps punctuation", script: SCRIPT }]
    })
    const run = yield* eventually("the Run opened", Effect.map(w.ledger.runs("steer").pipe(Effect.orElseSucceed(() => [])), (runs) => Option.fromNullable(runs[0])), 60)

    const attemptId = yield* whenRunning(w, run.id, ".usine-go-1")
    const first = yield* intervene(w.boardUrl, run.id, attemptId, FIRST)
    assert.deepStrictEqual([first.delivered, first.status], [cli.midToolCall === "delivered", cli.midToolCall], first.detail)
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
    assert.deepStrictEqual([second.delivered, second.status], [cli.midToolCall === "delivered", cli.midToolCall], second.detail)
    yield* release(w, attemptId, ".usine-go-2")

    const closed = yield* w.ledger.closedRun("steer", 120)
    const attempts = yield* w.ledger.attempts(run.id)
    assert.strictEqual(closed.state, "Succeeded", JSON.stringify(attempts))
    assert.strictEqual(attempts.length, 1, "one Attempt: the messages joined the running session")

    // The model received each message, in a later request of the same conversation.
    const withFirst = requestsWith(w, FIRST)
    const withSecond = requestsWith(w, SECOND)
    assert.isAbove(withFirst.length, 0, "the first message reached the model")
    assert.isAbove(withSecond.length, 0, "the message sent after the restart reached the model")
    const conversation = withFirst[0]?.conversation
    assert.isTrue([...withFirst, ...withSecond].every((r) => r.conversation === conversation), "one conversation: the same session")
    assert.strictEqual(withFirst[0]?.index, 1, "the first message came with the request after the slow tool call")
    assert.strictEqual(withSecond[0]?.index, 2)

    // The transcript: each message is an operator row, followed by what became of it.
    const lines = (yield* runView({ boardUrl }, run.id)).transcript.lines
    const operatorRows = lines.filter((l) => l.kind === "operator").map((l) => l.text)
    assert.deepStrictEqual(operatorRows, [FIRST, SECOND])
    const notes = lines.filter((l) => l.kind === "system" && l.text.startsWith("operator message ")).map((l) => l.text)
    assert.deepStrictEqual(notes.map((t) => t.split(":")[0]), Array(2).fill(`operator message ${cli.midToolCall}`))
    assert.strictEqual(lines.filter((l) => l.text === cli.acknowledged).length, 2, "the CLI's own acknowledgments")
  })
