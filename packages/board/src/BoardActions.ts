import { Effect, Option } from "effect"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { ItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { RunStateConflict } from "@usine/core/run/RunWriteRefusals"
import { RunEngine } from "@usine/engine/RunEngine"
import { LoopNotConfigured } from "@usine/engine/RunEngine/OperatorRefusals"
import type { CapTarget } from "@usine/engine/RunEngine/raiseDailyCap"
import { ReadModel } from "@usine/store/ReadModel"
import type { Amendment } from "@usine/store/OperatorActions"
import { RunReads } from "@usine/store/RunReads"
import { ItemNotOnBoard, UnknownColumn } from "./BoardActions/BoardActionRefusals"
import { BoardMoves } from "./BoardMoves"
import { BoardSettings } from "./BoardSettings"
import { columnOf } from "./BoardViews/boardView"

/**
 * The operator's actions. Each is one engine call (or one BoardMoves call) plus what makes it safe to repeat; the
 * engine and the ledger decide legality, and their typed errors travel to the edge unchanged.
 */
export class BoardActions extends Effect.Service<BoardActions>()("usine/BoardActions", {
  effect: Effect.gen(function* () {
    const engine = yield* RunEngine
    const store = yield* RunReads
    const model = yield* ReadModel
    const moves = yield* BoardMoves
    const boardSettings = yield* BoardSettings

    const configuredLoop = (loop: string) =>
      boardSettings.current().loops.some((l) => l.name === loop) ? Effect.void : Effect.fail(new LoopNotConfigured({ loop }))

    return {
      /** Waiting → Queued; a repeat after the approval is a no-op (`approved: false`). */
      approve: Effect.fn("BoardActions.approve")(function* (runId: RunId, expectedVersion: number | undefined) {
        const { approved, run } = yield* engine.approve(runId, expectedVersion)
        return { runId, state: run.state._tag, approved }
      }),
      /**
       * Any open state → Canceled; a repeat on a Canceled Run is a no-op (`canceled: false`). A harvest that had already
       * opened its pull request is named (`pullRequest`): it stays open on GitHub.
       */
      cancel: Effect.fn("BoardActions.cancel")(function* (runId: RunId, expectedVersion: number | undefined) {
        const { canceled, harvested, run } = yield* engine.cancel(runId, expectedVersion)
        const pullRequest = Option.getOrUndefined(harvested)?.pullRequestUrl
        return { runId, state: run.state._tag, canceled, ...(pullRequest === undefined ? {} : { pullRequest }) }
      }),
      /** At the pull-request gate: the held work is pushed and its pull request opened by the next Attempt. */
      approvePullRequest: Effect.fn("BoardActions.approvePullRequest")(function* (runId: RunId, expectedVersion: number | undefined) {
        const run = yield* engine.approvePullRequest(runId, expectedVersion)
        return { runId, state: run.state._tag }
      }),
      /** At the pull-request gate: the text goes to the agent in the next Attempt, then verify, then the gate again. */
      requestChanges: Effect.fn("BoardActions.requestChanges")(function* (runId: RunId, text: string, expectedVersion: number | undefined) {
        const run = yield* engine.requestChanges(runId, text, expectedVersion)
        return { runId, state: run.state._tag }
      }),
      /** At the pull-request gate: the Run is canceled and its held work pushed to its salvage branch. */
      reject: Effect.fn("BoardActions.reject")(function* (runId: RunId, expectedVersion: number | undefined) {
        const current = yield* store.getRun(runId)
        if (current.state._tag !== "Reviewing" && current.state._tag !== "Canceled") {
          return yield* new RunStateConflict({ runId, action: "reject", state: current.state._tag })
        }
        const { canceled, run, salvaged } = yield* engine.cancel(runId, expectedVersion)
        const branch = Option.getOrUndefined(salvaged)
        return { runId, state: run.state._tag, rejected: canceled, ...(branch === undefined ? {} : { salvageBranch: branch }) }
      }),
      /**
       * Failed → Running; a repeat finds the Run Running and is refused, so it never runs twice. With the version the
       * operator saw, a Run changed since is refused (StaleRunVersion).
       */
      retry: Effect.fn("BoardActions.retry")(function* (runId: RunId, expectedVersion: number | undefined) {
        const run = yield* engine.retry(runId, expectedVersion)
        return { runId, state: run.state._tag }
      }),
      /** The same retry with the task text, Agent and model replaced for every later Attempt; versioned as `retry`. */
      editAndRetry: Effect.fn("BoardActions.editAndRetry")(function* (
        runId: RunId,
        amendment: Amendment,
        expectedVersion: number | undefined
      ) {
        const run = yield* engine.editAndRetry(runId, amendment, expectedVersion)
        return { runId, state: run.state._tag }
      }),
      /** Marks the latest failed Attempt handled; a repeat changes nothing. */
      resolveFailure: Effect.fn("BoardActions.resolveFailure")(function* (runId: RunId) {
        const run = yield* engine.resolveFailure(runId)
        return { runId, state: run.state._tag, resolvedFailureAttemptId: run.resolvedFailureAttemptId }
      }),
      /**
       * Sends a message to the live session of the Run's open Attempt. `delivered` is true only once the agent's CLI
       * acknowledged it; `status` says `delivered`, `queued` or `refused`, and `detail` how or why.
       */
      intervene: Effect.fn("BoardActions.intervene")(function* (runId: RunId, attemptId: AttemptId, message: string) {
        const { detail, status } = yield* engine.intervene(runId, attemptId, message)
        return { runId, attemptId, delivered: status === "delivered", status, detail }
      }),
      /** Pauses or unpauses a configured Loop; setting the flag it already has changes nothing. */
      setPaused: Effect.fn("BoardActions.setPaused")(function* (loop: string, paused: boolean) {
        yield* configuredLoop(loop)
        yield* paused ? engine.pause(loop) : engine.unpause(loop)
        return { loop, paused }
      }),
      /**
       * Answers a cycle-budget Ask with a new generation. With `askId`, a reset whose Ask is no longer open (a repeated
       * click) changes nothing.
       */
      resetCycleBudget: Effect.fn("BoardActions.resetCycleBudget")(function* (itemKey: ItemKey, askId: string | undefined) {
        if (askId !== undefined) {
          const open = (yield* store.asks).some((ask) => ask.askId === askId && ask.itemKey === itemKey)
          if (!open) return { itemKey, generation: yield* store.generation(itemKey), reset: false }
        }
        const { generation } = yield* engine.resetCycleBudget(itemKey, askId)
        return { itemKey, generation, reset: true }
      }),
      /** Sets today's daily cap of a Loop, or of the daemon without one; setting the same figure again is a no-op. */
      raiseCap: Effect.fn("BoardActions.raiseCap")(function* (loop: string | undefined, to: CapTarget) {
        return yield* engine.raiseCap(loop, to)
      }),
      /** Ends a no-progress park so the Item's held Run starts; a repeat changes nothing (`cleared: false`). */
      clearNoProgress: Effect.fn("BoardActions.clearNoProgress")(function* (loop: string, itemKey: ItemKey) {
        return yield* engine.clearNoProgress(loop, itemKey)
      }),
      /** Moves a card: the Item's column label is swapped on GitHub and polling gets a Hint. Already there: no-op. */
      move: Effect.fn("BoardActions.move")(function* (repository: string, number: number, column: string) {
        const settings = boardSettings.current()
        const to = settings.columns.find((c) => c.name === column)
        if (to === undefined) return yield* new UnknownColumn({ column })
        const known = settings.repositories.find((r) => r.toLowerCase() === repository.toLowerCase())
        const item = known === undefined
          ? undefined
          : (yield* model.boardItems([known])).find((i) => i.number === number)
        if (known === undefined || item === undefined) return yield* new ItemNotOnBoard({ repository, number })
        const from = columnOf(settings.columns, item.labels)
        if (from?.name === to.name) return { repository: known, number, column: to.name, moved: false }
        yield* moves.move(known, number, from?.label, to.label)
        return { repository: known, number, column: to.name, moved: true }
      })
    } as const
  })
}) {}
