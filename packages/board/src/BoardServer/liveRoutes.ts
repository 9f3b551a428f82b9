import { Duration, Effect, Fiber, FiberId, Option } from "effect"
import type { RuntimeFiber } from "effect/Fiber"
import type { Context, Hono } from "hono"
import { type SSEMessage, streamSSE } from "hono/streaming"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { RunId } from "@usine/core/ids/RunId"
import type { BoardViews } from "../BoardViews"
import { transcriptRowHtml } from "../pages/TranscriptLines"
import type { BoardEnv } from "./BoardEnv"
import { RunParams, StreamQuery } from "./inputs"
import { parseInput } from "./parseInput"
import { problemOf, type RunExit } from "./respond"

export interface LiveDeps {
  readonly views: BoardViews
  readonly run: RunExit
  /** Forks into the server's scope: closing the Board interrupts every stream. */
  readonly fork: <A, E>(effect: Effect.Effect<A, E>) => RuntimeFiber<A, E>
  readonly interval: Duration.Duration
  readonly redact: (text: string) => string
}

type Send = (message: SSEMessage) => Effect.Effect<void>

/** Runs `body` as a fiber for as long as the client listens. */
const eventStream = (c: Context<BoardEnv>, deps: LiveDeps, body: (send: Send) => Effect.Effect<void>) =>
  streamSSE(c, async (stream) => {
    const send: Send = (message) => Effect.promise(() => stream.writeSSE(message))
    const fiber = deps.fork(body(send))
    stream.onAbort(() => fiber.unsafeInterruptAsFork(FiberId.none))
    await deps.run(Fiber.await(fiber))
  })

/**
 * Server-Sent Events, from the ledger polled on the `Clock`: `/events` says `changed` whenever Needs you, Runs, the
 * Board or Loops would show something new; `/api/runs/:id/stream` sends new transcript rows (redacted), a new
 * Attempt, and state changes.
 */
export const liveRoutes = (app: Hono<BoardEnv>, deps: LiveDeps) => {
  const { views } = deps

  app.get("/events", (c) =>
    eventStream(c, deps, (send) =>
      Effect.gen(function* () {
        let mark = yield* views.changeMark
        yield* send({ event: "ready", data: mark })
        while (true) {
          yield* Effect.sleep(deps.interval)
          const next = yield* views.changeMark
          if (next !== mark) yield* send({ event: "changed", data: next })
          mark = next
        }
      })
    ))

  app.get("/api/runs/:id/stream", async (c) => {
    const parsed = await deps.run(Effect.all([parseInput(RunParams, c.req.param()), parseInput(StreamQuery, c.req.query())]))
    if (parsed._tag === "Failure") {
      const problem = problemOf(parsed.cause, deps.redact)
      return c.json(problem.body, problem.status)
    }
    const [{ id }, query] = parsed.value
    const runId = RunId(id)
    const found = await deps.run(views.runPulse(runId))
    const first = found._tag === "Success" ? Option.getOrUndefined(found.value) : undefined
    if (first === undefined) return c.json({ error: "RunNotFound", message: `run ${runId} does not exist` }, 404)
    return eventStream(c, deps, (send) =>
      Effect.gen(function* () {
        let attemptId = query.attempt === undefined ? first.latestAttemptId : AttemptId(query.attempt)
        let after = query.after ?? 0
        let version = query.version ?? first.version
        let note = query.note ?? first.latestNoteId
        while (true) {
          const pulse = yield* views.runPulse(runId)
          if (Option.isNone(pulse)) return
          const latest = pulse.value.latestAttemptId
          if (latest !== undefined && latest !== attemptId) {
            if (attemptId !== undefined) yield* send({ event: "attempt", data: JSON.stringify({ attemptId: latest }) })
            attemptId = latest
            after = 0
          }
          if (attemptId !== undefined) {
            const rows = yield* views.transcriptAfter(attemptId, after)
            const last = rows.at(-1)
            if (last !== undefined) {
              // Each row as the page renders it (issue 21): the script inserts it, so a streamed row reads like a loaded one.
              const html = yield* Effect.promise(() => Promise.all(rows.map(transcriptRowHtml)))
              yield* send({ event: "transcript", id: `${attemptId}:${last.seq}`, data: JSON.stringify({ attemptId, rows, html }) })
              after = last.seq
            }
          }
          if (pulse.value.version !== version) {
            yield* send({ event: "state", data: JSON.stringify({ state: pulse.value.state, version: pulse.value.version }) })
            version = pulse.value.version
          }
          if (pulse.value.latestNoteId !== note) {
            yield* send({ event: "note", data: JSON.stringify({ noteId: pulse.value.latestNoteId }) })
            note = pulse.value.latestNoteId
          }
          yield* Effect.sleep(deps.interval)
        }
      })
    )
  })
}
