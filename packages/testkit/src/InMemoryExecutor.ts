import { Clock, Deferred, Duration, Effect, Exit, FiberId, Layer, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import {
  AttemptCanceled,
  AttemptFailed,
  type AttemptOutcome,
  AttemptSucceeded,
  type StepResult
} from "@usine/core/attempt/outcome"
import type { AttemptId } from "@usine/core/ids/AttemptId"
import type { Run } from "@usine/core/run/Run"
import type { TranscriptEntry, Usage } from "@usine/core/transcript/TranscriptRow"
import { type AttemptRequest, Executor, SessionGone } from "@usine/engine/Executor"

/** A usage row the session reports `after` its start: a session total, as harnesses report it. */
interface UsagePoint {
  readonly after: Duration.DurationInput
  readonly usage: Usage
  /** Counted by a model proxy (`onMeteredUsage`, one answer's usage) instead of printed as a usage row. */
  readonly metered?: boolean
}

/** What a session reports on the way: usage rows, and for a success, the Step result (default: no commit). */
export interface ScriptOptions {
  readonly usage?: ReadonlyArray<UsagePoint>
  /** The session runs behind a model proxy: it reports zero metered usage as it starts (ADR 0086). */
  readonly metered?: boolean
  readonly result?: StepResult
}

/** What a scripted session does: end after a delay (none means at once), or run until canceled. */
export type Script =
  | { readonly _tag: "Succeed"; readonly after?: Duration.DurationInput; readonly options?: ScriptOptions }
  | { readonly _tag: "Fail"; readonly failure: AttemptFailure; readonly after?: Duration.DurationInput; readonly options?: ScriptOptions }
  | { readonly _tag: "Hang"; readonly options?: ScriptOptions }

const timed = (after: Duration.DurationInput | undefined, options: ScriptOptions | undefined) => ({
  ...(after === undefined ? {} : { after }),
  ...(options === undefined ? {} : { options })
})

export const Script = {
  succeed: (after?: Duration.DurationInput, options?: ScriptOptions): Script => ({ _tag: "Succeed", ...timed(after, options) }),
  fail: (failure: AttemptFailure, after?: Duration.DurationInput, options?: ScriptOptions): Script => ({
    _tag: "Fail",
    failure,
    ...timed(after, options)
  }),
  hang: { _tag: "Hang" } as Script,
  hangWith: (options: ScriptOptions): Script => ({ _tag: "Hang", options })
}

interface Session {
  readonly attemptId: AttemptId
  readonly startedAt: number
  readonly script: Script
  status: "running" | "ended" | "gone"
  readonly rows: Array<TranscriptEntry>
  /** Usage points of the script already reported. */
  usageReported: number
  /** Where metered points go. */
  meter: ((usage: Usage) => Effect.Effect<void>) | undefined
  readonly done: Deferred.Deferred<AttemptOutcome>
}

/**
 * The executor port in memory, for tests. Sessions belong to this object, not to an engine: hand the same
 * instance to two engines on one ledger and the second finds the first one's sessions still live, as a real
 * durable session outlives a daemon restart. An ended session keeps its outcome until someone collects it.
 */
export class InMemoryExecutor {
  /** Every new session started, in order: an Attempt id appearing twice means it ran twice. */
  readonly executions: Array<AttemptId> = []
  readonly reattaches: Array<AttemptId> = []
  readonly requests: Array<{
    readonly attemptId: AttemptId
    readonly worker: string
    readonly run: Run
    readonly review?: AttemptRequest["review"]
  }> = []
  /** Salvage branches of work held at the pull-request gate (Reject, approval timeout). */
  readonly salvagedHeld: Array<string> = []
  readonly cancels: Array<AttemptId> = []
  readonly interventions: Array<{ readonly attemptId: AttemptId; readonly message: string }> = []
  readonly recoveries: Array<ReadonlyArray<AttemptId>> = []
  /** Attempts the engine released after recording their outcome, each with what `onRelease` answered then. */
  readonly releases: Array<{ readonly attemptId: AttemptId; readonly seen: unknown }> = []
  /** Looked at when an Attempt is released: a test reads the ledger there. */
  onRelease: (attempt: Attempt) => Effect.Effect<unknown> = () => Effect.void
  private readonly sessions = new Map<AttemptId, Session>()
  private readonly harvests = new Map<AttemptId, StepResult>()
  private readonly scripts = new Map<string, ReadonlyArray<Script>>()
  private fallback: (run: Run, attempt: Attempt) => Script = () => Script.succeed()

  static readonly make = Effect.sync(() => new InMemoryExecutor())

  /** Attempt N of the Run follows `perAttempt[N-1]`, or the last script once past the end. */
  script(runId: string, ...perAttempt: ReadonlyArray<Script>): void {
    this.scripts.set(runId, perAttempt)
  }

  /** The script of every Attempt without one of its own. */
  scriptOthers(fallback: (run: Run, attempt: Attempt) => Script): void {
    this.fallback = fallback
  }

  /** The session is lost, as after a machine restart: not live, and a follower sees an InfraFailure. */
  markGone(attemptId: AttemptId): void {
    const session = this.sessions.get(attemptId)
    if (session === undefined) return
    session.status = "gone"
    Deferred.unsafeDone(session.done, Exit.succeed(new AttemptFailed({ failure: new InfraFailure({ reason: "session lost", evidence: "" }) })))
  }

  /** Ends a running session now with this outcome. */
  finish(attemptId: AttemptId, outcome: AttemptOutcome): void {
    const session = this.sessions.get(attemptId)
    if (session?.status === "running") this.end(session, outcome)
  }

  /**
   * The session's harvest stored its Step result (the pull request is open) and the session is still finishing: a
   * cancel arriving now reports the result, as a real executor reads it from the Attempt's journal.
   */
  harvest(attemptId: AttemptId, result: StepResult): void {
    this.harvests.set(attemptId, result)
  }

  isRunning(attemptId: AttemptId): boolean {
    return this.sessions.get(attemptId)?.status === "running"
  }

  get layer(): Layer.Layer<Executor> {
    return Layer.succeed(Executor, this.executor)
  }

  readonly executor: Executor["Type"] = {
    isLive: (attempt) => Effect.sync(() => this.sessions.has(attempt.id) && this.sessions.get(attempt.id)!.status !== "gone"),
    execute: (request) => this.execute(request),
    release: (attempt) =>
      Effect.map(Effect.suspend(() => this.onRelease(attempt)), (seen) => void this.releases.push({ attemptId: attempt.id, seen })),
    cancel: (attemptId) =>
      Effect.sync(() => {
        this.cancels.push(attemptId)
        const session = this.sessions.get(attemptId)
        if (session?.status === "running") this.end(session, new AttemptCanceled({ reason: "canceled by the engine" }))
        return Option.fromNullable(this.harvests.get(attemptId))
      }),
    intervene: (attemptId, message) =>
      Effect.gen(this, function*() {
        const session = this.sessions.get(attemptId)
        if (session?.status !== "running") return yield* new SessionGone({ attemptId })
        this.interventions.push({ attemptId, message })
        session.rows.push({ kind: "operator", text: message, at: yield* Clock.currentTimeMillis })
        return { status: "delivered", detail: "the in-memory agent took it" } as const
      }),
    salvageHeld: (run, _held, attemptNumber) =>
      Effect.sync(() => {
        const branch = `usine/salvage/${run.id}/${attemptNumber}`
        this.salvagedHeld.push(branch)
        return Option.some(branch)
      }),
    recoverWorkspaces: (live) =>
      Effect.sync(() => {
        const kept = live.map((a) => a.id)
        this.recoveries.push(kept)
        const removed = [...this.sessions.values()].filter((s) => s.status !== "running" && !kept.includes(s.attemptId))
        return { salvaged: [], removed: removed.map((s) => s.attemptId), kept }
      })
  }

  private end(session: Session, outcome: AttemptOutcome): void {
    if (session.status === "running") session.status = "ended"
    Deferred.unsafeDone(session.done, Exit.succeed(outcome))
  }

  private scriptFor(run: Run, attempt: Attempt): Script {
    const perAttempt = this.scripts.get(run.id)
    return perAttempt?.[attempt.number - 1] ?? perAttempt?.[perAttempt.length - 1] ?? this.fallback(run, attempt)
  }

  private execute(request: AttemptRequest): Effect.Effect<AttemptOutcome> {
    return Effect.gen(this, function*() {
      const id = request.attempt.id
      const now = yield* Clock.currentTimeMillis
      let session = this.sessions.get(id)
      let emitted = 0
      if (request.reattach) {
        if (session === undefined || session.status === "gone") {
          return new AttemptFailed({ failure: new InfraFailure({ reason: "session not found", evidence: id }) })
        }
        this.reattaches.push(id)
        session.meter = request.onMeteredUsage
        emitted = request.transcriptRowsStored
      } else {
        session = {
          attemptId: id,
          startedAt: now,
          script: this.scriptFor(request.run, request.attempt),
          status: "running",
          rows: [{ kind: "system", text: `session started on ${request.worker}`, at: now }],
          usageReported: 0,
          meter: request.onMeteredUsage,
          done: Deferred.unsafeMake<AttemptOutcome>(FiberId.none)
        }
        this.sessions.set(id, session)
        this.executions.push(id)
        this.requests.push({ attemptId: id, worker: request.worker, run: request.run, review: request.review })
        yield* request.onSession(`memory:${id}`)
        if (session.script.options?.metered === true && request.onMeteredUsage !== undefined) {
          yield* request.onMeteredUsage({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 })
        }
      }
      const started = session
      const flush = Effect.uninterruptible(Effect.suspend(() => {
        const rows = started.rows.slice(emitted)
        emitted = started.rows.length
        return rows.length === 0 ? Effect.void : request.onTranscript(rows)
      }))
      yield* flush
      // A race forks two fibers for the whole session: a script without usage points has nothing to report.
      const awaited = this.awaitOutcome(started, now, flush)
      const reports = (started.script.options?.usage ?? []).length > 0
      const outcome = yield* reports
        ? awaited.pipe(Effect.raceFirst(this.reportUsage(started, flush).pipe(Effect.zipRight(Effect.never))))
        : awaited
      if (started.rows.at(-1)?.kind !== "assistant") {
        started.rows.push({ kind: "assistant", text: `ended ${outcome._tag}`, at: yield* Clock.currentTimeMillis })
      }
      yield* flush
      return outcome
    })
  }

  /**
   * Reports each usage point of the script when it falls due, while someone follows the session; with `upTo`, at once
   * every point due by then (a session reports its usage before it ends).
   */
  private reportUsage(session: Session, flush: Effect.Effect<void>, upTo?: number): Effect.Effect<void> {
    const points = session.script.options?.usage ?? []
    return Effect.gen(function*() {
      while (session.usageReported < points.length && session.status === "running") {
        const point = points[session.usageReported]!
        const dueAt = session.startedAt + Duration.toMillis(point.after)
        if (upTo !== undefined && dueAt > upTo) return
        const due = dueAt - (yield* Clock.currentTimeMillis)
        if (upTo === undefined && due > 0) yield* Effect.sleep(Duration.millis(due))
        if (session.status !== "running") return
        const at = yield* Clock.currentTimeMillis
        if (points[session.usageReported] !== point) continue
        const { usage } = point
        if (point.metered === true) {
          session.usageReported++
          if (session.meter !== undefined) yield* session.meter(usage)
          continue
        }
        const text = `tokens: ${usage.inputTokens} in (${usage.cachedInputTokens} cached), ${usage.outputTokens} out`
        session.rows.push({ kind: "usage", text, usage, at })
        session.usageReported++
        yield* flush
      }
    })
  }

  private awaitOutcome(session: Session, now: number, flush: Effect.Effect<void>): Effect.Effect<AttemptOutcome> {
    const script = session.script
    if (script._tag === "Hang") return Deferred.await(session.done)
    const scripted: AttemptOutcome = script._tag === "Succeed"
      ? new AttemptSucceeded({ result: script.options?.result ?? { commits: [], summary: "done" } })
      : new AttemptFailed({ failure: script.failure })
    const endAt = session.startedAt + Duration.toMillis(script.after ?? 0)
    const remaining = endAt - now
    const elapse = this.reportUsage(session, flush, endAt).pipe(
      Effect.zipRight(Effect.sync(() => this.end(session, scripted))),
      Effect.zipRight(Deferred.await(session.done))
    )
    return remaining <= 0
      ? Effect.suspend(() => (session.status === "running" ? elapse : Deferred.await(session.done)))
      : Effect.raceFirst(Deferred.await(session.done), Effect.sleep(Duration.millis(remaining)).pipe(Effect.zipRight(elapse)))
  }
}
