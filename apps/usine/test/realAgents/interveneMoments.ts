import { assert } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { demoModelScripts } from "../../src/demo/demoModelScripts"
import { eventually } from "../support/http"
import { type RealAgentWorld, realAgentWorld } from "./RealAgentWorld"
import { intervene, runView } from "./steeredThroughRestart"

/** A tool call that takes `seconds` of wall time, as an operator's slow build or test run does. */
const SLOW_TOOL = (seconds: number) => `sleep ${seconds}; echo slept ${seconds}`

/** The model's first answer is a slow tool call, then the demo's fix (its last answer ends the agent's run). */
const slowToolScript = (seconds: number): ModelScript => ({
  turns: [{ run: SLOW_TOOL(seconds) }, ...demoModelScripts.fixPunctuation.turns]
})

/** Requests of the scenario's model conversation (the scripted ones) that carry `text`. */
const requestsWith = (w: RealAgentWorld, scenario: string, text: string) =>
  (w.models[scenario]?.requests ?? []).filter((r) => r.turn !== undefined && JSON.stringify(r.body).includes(text))

/** The scenario's one Run, once it exists. */
export const openedRun = (w: RealAgentWorld, scenario: string) =>
  eventually(
    `the ${scenario} Run opened`,
    Effect.map(w.ledger.runs(scenario).pipe(Effect.orElseSucceed(() => [])), (runs) => Option.fromNullable(runs[0])),
    90
  )

/** The Run's open Attempt once its transcript shows a `tool_call` whose text includes `command`, and no result yet. */
export const inToolCall = (w: RealAgentWorld, runId: string, command: string) =>
  eventually(
    `the agent is in its call of ${command}`,
    Effect.map(runView(w, runId).pipe(Effect.orElseSucceed(() => undefined)), (view) => {
      const lines = view?.transcript.lines ?? []
      const call = lines.findIndex((l) => l.kind === "tool_call" && l.text.includes(command))
      const open = call >= 0 && !lines.slice(call + 1).some((l) => l.kind === "tool_result")
      return Option.fromNullable(open ? view?.attempts.find((a) => a.outcome === "Open")?.id : undefined)
    }),
    90
  )

/**
 * Through `usine up`, the real Pi CLI on model-sim, `count` Runs at once (each its own Loop, issue and model): the
 * model's first answer is a tool call of `seconds`; while it runs, the operator sends Intervene. The answer is
 * `delivered` or `queued` in Pi (never a guess, ADR 0093), the message must be in the model's next request (the one carrying the tool's result) of the same
 * conversation, and each Run must end Succeeded with one Attempt.
 */
export const interveneDuringToolCall = (options: {
  readonly command: ReadonlyArray<string>
  readonly count: number
  readonly seconds: number
}) =>
  Effect.gen(function* () {
    const names = Array.from({ length: options.count }, (_, i) => `during-tool-${i + 1}`)
    const w = yield* realAgentWorld({
      harness: "pi",
      command: options.command,
      stallMinutes: 2,
      scenarios: names.map((name) => ({ name, title: "slugify keeps punctuation", script: slowToolScript(options.seconds) }))
    })
    const one = (name: string) =>
      Effect.gen(function* () {
        const message = `Operator to ${name}: keep the regression test short.`
        const run = yield* openedRun(w, name)
        const attemptId = yield* inToolCall(w, run.id, SLOW_TOOL(options.seconds))
        const answer = yield* intervene(w.boardUrl, run.id, attemptId, message)
        const closed = yield* w.ledger.closedRun(name, 120)
        const attempts = yield* w.ledger.attempts(run.id)
        const carrying = requestsWith(w, name, message)
        const requests = w.models[name]?.requests.filter((r) => r.turn !== undefined) ?? []
        return { name, answer, closed, attempts, carrying, requests }
      })
    const results = yield* Effect.forEach(names, one, { concurrency: "unbounded" })
    for (const r of results) {
      const where = `${r.name}: ${r.answer.status} (${r.answer.detail}); requests ${r.requests.map((q) => `#${q.index} ${q.lastToolOutput ?? ""}`.trim()).join(", ")}`
      // Delivered if Pi took it into the conversation within the Board's wait (the tool ended by then), else queued in Pi.
      if (r.answer.status === "queued") assert.match(r.answer.detail, /^pi queued it: it goes to the model with the agent's next request/, where)
      else assert.strictEqual(r.answer.status, "delivered", where)
      assert.strictEqual(r.closed.state, "Succeeded", `${where}; ${JSON.stringify(r.attempts)}`)
      assert.strictEqual(r.attempts.length, 1, where)
      assert.isAbove(r.carrying.length, 0, `the message reached the model: ${where}`)
      assert.strictEqual(r.carrying[0]?.index, 1, `the message came with the request after the slow tool call: ${where}`)
      assert.isTrue(r.carrying.every((q) => q.conversation === r.requests[0]?.conversation), `one conversation: ${where}`)
    }
  })
