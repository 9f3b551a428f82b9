import type { Attempt } from "@usine/core/attempt/Attempt"
import type { DiffSummary } from "@usine/core/attempt/DiffSummary"
import type { StepResult } from "@usine/core/attempt/outcome"
import type { Usage } from "@usine/core/transcript/TranscriptRow"
import { type FailureView, failureView } from "@usine/store/ReadModel/needsYou"
import type { RunDetail } from "@usine/store/ReadModel/runDetail"
import type { RunSummary } from "@usine/store/ReadModel/RunSummary"
import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"
import type { WriteBackTrouble } from "@usine/store/WriteBackOutbox"
import { legalActions, type RunAction } from "./legalActions"
import { type TimelineEntry, timeline } from "./timeline"

export interface RunInfo extends RunSummary {
  readonly task: string
  readonly createdAt: number
  readonly resolvedFailureAttemptId?: string | undefined
}

export interface AttemptView {
  readonly id: string
  readonly number: number
  readonly startedAt: number
  readonly endedAt?: number | undefined
  readonly worker?: string | undefined
  readonly outcome: "Open" | "Succeeded" | "Failed" | "Canceled"
  readonly failure?: FailureView | undefined
  /** What a succeeded Attempt's commits change; absent for other outcomes and for outcomes stored without it. */
  readonly diff?: DiffSummary | undefined
  readonly usage?: Usage | undefined
}

export interface TranscriptView {
  /** The Attempt shown; absent before the first Attempt. */
  readonly attemptId?: string | undefined
  readonly attemptNumber?: number | undefined
  readonly lines: ReadonlyArray<TranscriptLine>
  /** The last sequence number shown: the live stream continues after it. */
  readonly lastSeq: number
  /** Older rows exist than the window holds. */
  readonly earlierOmitted: boolean
}

/** Everything the Run page shows, and its JSON twin returns. */
export interface RunView {
  readonly run: RunInfo
  readonly actions: ReadonlyArray<RunAction>
  readonly timeline: ReadonlyArray<TimelineEntry>
  /** The newest Run note's id (0: none): the live stream reports newer ones. */
  readonly latestNoteId: number
  readonly attempts: ReadonlyArray<AttemptView>
  /** The branch, pull request and diff summary of the successful Attempt. */
  readonly result?: StepResult | undefined
  readonly usage?: Usage | undefined
  readonly transcript: TranscriptView
  /** `verify` rows of the shown Attempt: one per verification round. */
  readonly verification: ReadonlyArray<TranscriptLine>
  /** Rows whose tool is `guard`: the pre-push guards' results. */
  readonly guards: ReadonlyArray<TranscriptLine>
  /** The unified diff the ledger keeps of the newest held Attempt (ADR 0063), cut at its bound; absent without one. */
  readonly patch?: AttemptPatch | undefined
  /** Writes to GitHub for the Run (ADR 0065) that failed at least once or skipped something, oldest first. */
  readonly writeBack: ReadonlyArray<WriteBackTrouble>
}

export interface AttemptPatch {
  readonly attemptNumber: number
  readonly text: string
  readonly cut: boolean
}

const attemptView = (attempt: Attempt, usage: Usage | undefined): AttemptView => ({
  id: attempt.id,
  number: attempt.number,
  startedAt: attempt.startedAt,
  ...(attempt.endedAt === undefined ? {} : { endedAt: attempt.endedAt }),
  ...(attempt.worker === undefined ? {} : { worker: attempt.worker }),
  outcome: attempt.outcome?._tag ?? "Open",
  ...(attempt.outcome?._tag === "Failed" ? { failure: failureView(attempt.outcome) } : {}),
  ...(attempt.outcome?._tag === "Succeeded" && attempt.outcome.result.diff !== undefined ? { diff: attempt.outcome.result.diff } : {}),
  ...(usage === undefined ? {} : { usage })
})

/** The Run page's data from the ledger's detail and a window of the shown Attempt's transcript. */
export const runView = (
  detail: RunDetail,
  shown: Attempt | undefined,
  lines: ReadonlyArray<TranscriptLine>,
  patch?: AttemptPatch | undefined,
  writeBack: ReadonlyArray<WriteBackTrouble> = []
): RunView => {
  const { run } = detail
  const latest = detail.attempts.at(-1)
  const usageOf = new Map(detail.usageByAttempt.map((u) => [u.attemptId as string, u.usage]))
  const succeeded = detail.attempts.findLast((a) => a.outcome?._tag === "Succeeded")?.outcome
  return {
    run: {
      id: run.id,
      loop: run.loop,
      itemKey: run.itemKey,
      repository: run.repository,
      ...(run.number === undefined ? {} : { number: run.number }),
      state: run.state._tag,
      ...(run.state._tag === "Canceled" ? { cancelReason: run.state.reason._tag } : {}),
      version: run.version,
      agent: run.agent,
      ...(run.model === undefined ? {} : { model: run.model }),
      approvalRequired: run.approvalRequired,
      receivedAt: run.receivedAt,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      task: run.task,
      ...(run.resolvedFailureAttemptId === undefined ? {} : { resolvedFailureAttemptId: run.resolvedFailureAttemptId })
    },
    actions: legalActions(run, latest),
    timeline: timeline(detail.transitions, detail.attempts, detail.notes),
    latestNoteId: detail.notes.at(-1)?.id ?? 0,
    attempts: detail.attempts.map((a) => attemptView(a, usageOf.get(a.id))),
    ...(succeeded?._tag === "Succeeded" ? { result: succeeded.result } : {}),
    ...(detail.usage === undefined ? {} : { usage: detail.usage }),
    transcript: {
      ...(shown === undefined ? {} : { attemptId: shown.id, attemptNumber: shown.number }),
      lines,
      lastSeq: lines.at(-1)?.seq ?? 0,
      earlierOmitted: (lines[0]?.seq ?? 1) > 1
    },
    verification: lines.filter((l) => l.kind === "verify"),
    guards: lines.filter((l) => l.tool === "guard"),
    ...(patch === undefined ? {} : { patch }),
    writeBack
  }
}
