import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer, type Option } from "effect"
import { ledgerPort } from "./ledgerPort"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { RunId } from "@usine/core/ids/RunId"
import type { RunNotFound } from "@usine/core/run/RunWriteRefusals"
import { type BoardItem, makeBoardItems } from "./ReadModel/boardItems"
import { makeChangeMark } from "./ReadModel/changeMark"
import { type LoopsOverview, makeLoopsOverview } from "./ReadModel/loopsOverview"
import { makeNeedsYou, type NeedsYou } from "./ReadModel/needsYou"
import { makeRunDetail, type RunDetail, type RunPulse, type TranscriptWindow } from "./ReadModel/runDetail"
import { makeRunList, type RunFilter, type RunPage } from "./ReadModel/runList"
import { type DayCountFilter, type DayStateCount, makeRunCountsByDay } from "./ReadModel/runCountsByDay"
import type { TranscriptLine } from "./ReadModel/TranscriptLine"

/**
 * The Board's queries on the ledger. Read-only; every list is bounded and served by an index, so the pages stay fast
 * on a ledger of 100,000 Runs (migration 0002).
 */
export class ReadModel extends Context.Tag("usine/ReadModel")<
  ReadModel,
  {
    /** Waiting Runs with their task, unresolved failures with their last lines, open Asks; `limit` per list. */
    readonly needsYou: (limit: number) => Effect.Effect<NeedsYou>
    /** One page of Runs, newest first, and the counts per state under the same filters. */
    readonly runs: (filter: RunFilter) => Effect.Effect<RunPage>
    /** Runs received per UTC day in a range, by the state they are in now (the Runs page's chart). */
    readonly runCountsByDay: (filter: DayCountFilter) => Effect.Effect<ReadonlyArray<DayStateCount>>
    /** A Run with its Attempts, transition log, notes and usage. */
    readonly run: (runId: RunId) => Effect.Effect<RunDetail, RunNotFound>
    /** A window of an Attempt's transcript, oldest first. */
    readonly transcript: (attemptId: AttemptId, window: TranscriptWindow) => Effect.Effect<ReadonlyArray<TranscriptLine>>
    /** The Run's version, state and latest Attempt, for live pages; None when no such Run. */
    readonly runPulse: (runId: RunId) => Effect.Effect<Option.Option<RunPulse>>
    /** Item projections of the repositories with their labels and open Runs. */
    readonly boardItems: (repositories: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<BoardItem>>
    /** Runs per Loop and state, pause flags, open Asks. */
    readonly loops: Effect.Effect<LoopsOverview>
    /** Changes whenever anything Needs you, Runs or Loops show changes state. */
    readonly changeMark: Effect.Effect<string>
  }
>() {}

const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const detail = makeRunDetail(sql)
  return ledgerPort(ReadModel, {
    needsYou: makeNeedsYou(sql),
    runs: makeRunList(sql),
    runCountsByDay: makeRunCountsByDay(sql),
    run: detail.run,
    transcript: detail.transcript,
    runPulse: detail.runPulse,
    boardItems: makeBoardItems(sql),
    loops: makeLoopsOverview(sql),
    changeMark: makeChangeMark(sql)
  })
})

/** The read model on the SQLite ledger; needs `Sql.layer` (or `Sql.layerUnlocked`) below it. */
export const layer: Layer.Layer<ReadModel, never, SqlClient.SqlClient> = Layer.effect(ReadModel, make)
