import { join } from "node:path"
import { Context, Duration, Effect, Layer, Option } from "effect"
import { contentHash as hashOf } from "@usine/core/content/contentHash"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { type RunId, runIdOf } from "@usine/core/ids/RunId"
import type { RunStateTag } from "@usine/core/run/state"
import type { AttemptPolicy } from "@usine/engine/Executor"
import { InMemoryExecutor } from "@usine/testkit/InMemoryExecutor"
import { LoopPolicies, type LoopPolicy } from "@usine/engine/LoopPolicies"
import { RunEngine } from "@usine/engine/RunEngine"
import { TriggerCondition } from "@usine/engine/TriggerCondition"
import { Redactor } from "@usine/core/text/Redactor"
import { ItemStore } from "@usine/store/ItemStore"
import * as ReadModel from "@usine/store/ReadModel"
import * as Sql from "@usine/store/Sql"
import { BrakeStore } from "@usine/store/BrakeStore"
import * as SqlBrakeStore from "@usine/store/SqlBrakeStore"
import * as SqlItemStore from "@usine/store/SqlItemStore"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import * as SqlAuditLog from "@usine/store/SqlAuditLog"
import * as SqlTriggerRefusals from "@usine/store/SqlTriggerRefusals"
import { TriggerRefusals } from "@usine/store/TriggerRefusals"
import * as WriteBackOutbox from "@usine/store/WriteBackOutbox"
import { BoardMoves } from "@usine/board/BoardMoves"
import { type BoardRoute, BoardRoutes } from "@usine/board/BoardRoutes"
import { BoardServer } from "@usine/board/BoardServer"
import { BoardSettings, type BoardSettingsData } from "@usine/board/BoardSettings"
import { PollFailureFeed, type PollFailureView, type RateQuotaView } from "@usine/board/PollFailureFeed"
import { type WorkerStatus, WorkerStatusFeed } from "@usine/board/WorkerStatusFeed"
import { BoardClient } from "./BoardClient"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { runLedgerOf, type RunLedger } from "@usine/testkit/runLedger"

export const REPOSITORY = "acme/app"
/** A value the daemon knows is secret (the GitHub token): the redactor hides it wherever it appears. */
export const SECRET = "s3cr3t-github-token-value"

const attempt: AttemptPolicy = {
  verify: [], verifyRounds: 0, forbiddenPaths: [], maxChangedFiles: undefined, maxAttemptMinutes: undefined,
  stallMinutes: undefined, kind: "issues"
}
const policy = (approvalRequired: boolean): LoopPolicy => ({
  approvalRequired, maxAttemptMinutes: undefined, approvalTimeoutMinutes: undefined, attempt, workers: undefined
})

export const boardSettings = (patch: Partial<BoardSettingsData> = {}): BoardSettingsData => ({
  ...BoardSettings.defaults,
  repositories: [REPOSITORY],
  columns: [{ name: "Ready", label: "ready-for-agent" }, { name: "Review", label: "ready-for-review" }],
  loops: [
    { name: "build", on: "issues", if: "true", repositories: [REPOSITORY], agent: "codex", approval: "none", maxCycles: 3 },
    { name: "gated", on: "issues", if: '"ready-for-agent" in item.labels', repositories: [REPOSITORY], agent: "codex", approval: "required", maxCycles: 3 }
  ],
  liveInterval: Duration.seconds(1),
  ...patch
})

interface Move {
  readonly repository: string
  readonly number: number
  readonly from: string | undefined
  readonly to: string
}

interface BoardOptions {
  readonly settings?: Partial<BoardSettingsData>
  readonly workers?: ReadonlyArray<WorkerStatus>
  readonly pollFailures?: ReadonlyArray<PollFailureView>
  readonly rateQuotas?: ReadonlyArray<RateQuotaView>
  /** Budget and brake settings of the `build` Loop's policy. */
  readonly build?: Pick<LoopPolicy, "budget" | "maxNoProgress" | "maxOpenPullRequests">
  /** Routes served beside the Board (webhooks, metrics). */
  readonly routes?: ReadonlyArray<BoardRoute>
}

const tempLedger = scopedTempDir("usine-board-").pipe(Effect.map((dir) => join(dir, "ledger.sqlite")))

/**
 * The Board as the daemon wires it: a real SQLite ledger, the real RunEngine on the in-memory executor, and the Board
 * on a real port. Board moves rewrite the Item's labels in the ledger's projection, as GitHub plus a Hint would.
 */
export const boardLayer = (options: BoardOptions = {}) =>
  Layer.unwrapScoped(Effect.gen(function* () {
    const file = yield* tempLedger
    const memory = yield* InMemoryExecutor.make
    const moves: Array<Move> = []
    const stores = Layer.mergeAll(
      SqlRunStore.layer, SqlItemStore.layer, SqlBrakeStore.layer, SqlTriggerRefusals.layer, SqlAuditLog.layer, ReadModel.layer, WriteBackOutbox.layer
    ).pipe(
      Layer.provideMerge(Sql.layer(file))
    )
    const engine = RunEngine.Default.pipe(
      Layer.provideMerge(Layer.mergeAll(
        memory.layer,
        LoopPolicies.layer({
          loops: { build: { ...policy(false), ...options.build }, gated: policy(true) },
          workers: [{ name: "w1", maxConcurrentAttempts: 4, agents: ["codex", "claude"] }],
          budget: options.settings?.budget
        }),
        TriggerCondition.layerAlways
      ))
    )
    const movesLayer = Layer.effect(BoardMoves, Effect.map(ItemStore, (items) => ({
      move: (repository: string, number: number, from: string | undefined, to: string) =>
        Effect.gen(function* () {
          moves.push({ repository, number, from, to })
          const found = yield* items.projection(itemKeyOf(repository, number))
          if (Option.isNone(found)) return
          const payload = found.value.payload as { labels: { nodes: Array<{ name: string }> } }
          const names = payload.labels.nodes.map((l) => l.name).filter((n) => n !== from && n !== to)
          // As the next poll would: new labels, a new payload, so a new content hash.
          const moved = { ...payload, labels: { nodes: [...names, to].map((name) => ({ name })) } }
          yield* items.saveProjection({ ...found.value, payload: moved, contentHash: hashOf(moved) })
        })
    })))
    const feeds = Layer.mergeAll(
      BoardSettings.layer(boardSettings(options.settings)),
      Redactor.layer([SECRET]),
      Layer.succeed(PollFailureFeed, {
        recent: Effect.succeed(options.pollFailures ?? []),
        rateQuotas: Effect.succeed(options.rateQuotas ?? [])
      }),
      WorkerStatusFeed.layerStatic(options.workers ?? []),
      movesLayer,
      Layer.succeed(BoardRoutes, options.routes ?? [])
    )
    const board = BoardServer.Default.pipe(Layer.provideMerge(feeds), Layer.provideMerge(engine), Layer.provideMerge(stores))
    return Layer.merge(board, Layer.succeed(Harness, { memory, moves }))
  }))

/** The test's handles on the in-memory executor and the recorded Board moves. */
class Harness extends Context.Tag("test/Harness")<Harness, {
  readonly memory: InMemoryExecutor
  readonly moves: Array<Move>
}>() {}

/** Builds the Board for the scope and hands back everything a test touches. */
export const startBoard = (options: BoardOptions = {}) =>
  Effect.gen(function* () {
    const context = yield* Layer.build(boardLayer(options))
    const server = Context.get(context, BoardServer)
    return {
      ...Context.get(context, Harness),
      server,
      engine: Context.get(context, RunEngine),
      store: runLedgerOf(context),
      items: Context.get(context, ItemStore),
      brakes: Context.get(context, BrakeStore),
      refusals: Context.get(context, TriggerRefusals),
      client: (host?: string) => new BoardClient(server.port, host)
    }
  })

export const submission = (input: {
  readonly number: number
  readonly loop?: string
  readonly content?: string
  readonly approvalRequired?: boolean
  readonly receivedAt?: number
}): Submission => {
  const loop = input.loop ?? "build"
  const contentHash = input.content ?? `c${input.number}`
  return {
    eventId: itemEventIdOf({ loop, repository: REPOSITORY, number: input.number, contentHash, generation: 0 }),
    loop,
    itemKey: itemKeyOf(REPOSITORY, input.number),
    repository: REPOSITORY,
    number: input.number,
    generation: 0,
    contentHash,
    task: `work on #${input.number}`,
    agent: "codex",
    approvalRequired: input.approvalRequired ?? loop === "gated",
    maxCycles: 3,
    receivedAt: input.receivedAt ?? input.number
  }
}

export const runOf = (s: Submission): RunId => runIdOf(s.eventId)

/** Lets real I/O and every fiber run until `check` holds; fails the test instead of hanging. */
export const eventually = (label: string, check: () => Effect.Effect<boolean, unknown> | boolean) =>
  Effect.gen(function* () {
    for (let i = 0; i < 2_000; i++) {
      const result = check()
      if (typeof result === "boolean" ? result : yield* Effect.orDie(result)) return
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
    }
    return yield* Effect.dieMessage(`never happened: ${label}`)
  })

export const untilState = (store: RunLedger, runId: RunId, state: RunStateTag) =>
  eventually(`run ${runId} ${state}`, () => Effect.map(store.getRun(runId), (run) => run.state._tag === state))
