import { Clock, Duration, Effect } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import type { Hint } from "@usine/triggers/Hints"
import { WriteBack, type WriteBackRequest } from "@usine/github/WriteBack"
import { WRITE_BACK_MARKER } from "@usine/triggers/contextFields"
import { type PendingWriteBack, WriteBackOutbox } from "@usine/store/WriteBackOutbox"
import { ConfigState } from "../ConfigState"
import { boardOrigin } from "./notifications"

/** How often write-back looks at the ledger. */
const WRITE_BACK_INTERVAL = Duration.seconds(1)

/** Waits before the next try of a failed write-back: 2 s doubling, at most 5 minutes. */
export const writeBackBackoffMs = (tries: number): number => Math.min(300_000, 2000 * 2 ** Math.min(tries, 10))

/** Tries of one write-back before it is given up (about 4 minutes of backoff): the Run shows it, the next phase goes on. */
export const WRITE_BACK_MAX_TRIES = 8

/** When to try a write-back again after its `tries`-th failed try at `now`; undefined once it is given up. */
export const retryAtAfter = (tries: number, now: number): number | undefined =>
  tries >= WRITE_BACK_MAX_TRIES ? undefined : now + writeBackBackoffMs(tries - 1)

const HEADLINES = { running: "is running", succeeded: "succeeded", failed: "failed", canceled: "was canceled" } as const

const headline = (pending: PendingWriteBack) =>
  pending.phase === "canceled" && pending.cancelReason !== undefined
    ? `${HEADLINES.canceled} (${pending.cancelReason})`
    : HEADLINES[pending.phase]

/** The comment's text: the Run on the Board, where it is, and its pull request. Marked so no Loop reads it as content. */
const commentBody = (config: UsineConfig, pending: PendingWriteBack): string =>
  [
    `usine's \`${pending.loop}\` Loop: Run [\`${pending.runId}\`](${boardOrigin(config)}/runs/${pending.runId}) ${headline(pending)}.`,
    ...(pending.pullRequest === undefined ? [] : [`Pull request: #${pending.pullRequest.number}`]),
    WRITE_BACK_MARKER
  ].join("\n\n")

/** What the Loop asks to be written at this point of the Run; undefined when nothing. */
const requestOf = (config: UsineConfig, loop: ItemLoop, pending: PendingWriteBack, commentId: number | undefined, self: string) => {
  const pull = pending.phase === "succeeded" ? pending.pullRequest : undefined
  const request: WriteBackRequest = {
    repository: pending.repository,
    number: pending.number,
    reviewerContext: { ifSource: loop.if.source, receivedAt: pending.receivedAt, approval: pending.approval, self, operator: config.board.operator },
    labels: loop.statusLabels[pending.phase],
    pullRequest:
      // A pull-request Loop pushes to the pull request it acts on: that is the Item itself.
      pull === undefined || loop.on !== "issues"
        ? undefined
        : { number: pull.number, labels: loop.pullRequest.labels, reviewers: loop.pullRequest.reviewers },
    comment: loop.comment ? { body: commentBody(config, pending), id: commentId } : undefined
  }
  const empty = request.labels === undefined && request.comment === undefined &&
    (request.pullRequest === undefined || (request.pullRequest.labels.length === 0 && request.pullRequest.reviewers.length === 0))
  return empty ? undefined : request
}

/**
 * Write-back (ADR 0065): each second, the transitions the engine recorded since become write-backs in the ledger,
 * and the due ones are applied through the throttled client: the Item's status labels, the pull request's labels and
 * reviewers, the Item's one comment. The Item is then read again at once, so the Board's columns follow. A failed
 * write is tried again later, given up after `WRITE_BACK_MAX_TRIES`, and kept on the Run; it never changes the Run.
 * `self` is usine's GitHub account, never asked to review its own pull request; `reread` asks the triggers to read
 * a written Item again now (`PollingTriggers.hint`).
 */
export const writeBackLoop = (self: string, reread: (item: Hint) => Effect.Effect<unknown>) => Effect.gen(function* () {
  const outbox = yield* WriteBackOutbox
  const state = yield* ConfigState
  const writer = yield* WriteBack
  const cycle = Effect.gen(function* () {
    yield* outbox.advance
    const config = yield* state.get
    for (const pending of yield* outbox.due(yield* Clock.currentTimeMillis, 20)) {
      const loop = config.loops.find((l): l is ItemLoop => l.name === pending.loop && l.on !== "schedule")
      const commentId = yield* outbox.commentOf(pending.repository, pending.number)
      const request = loop === undefined ? undefined : requestOf(config, loop, pending, commentId, self)
      const applied = request === undefined ? undefined : yield* Effect.either(writer.apply(request))
      const now = yield* Clock.currentTimeMillis
      if (applied === undefined || applied._tag === "Right") {
        if (applied?._tag === "Right" && applied.right.commentId !== undefined) {
          yield* outbox.rememberComment(pending.repository, pending.number, applied.right.commentId)
        }
        yield* outbox.done(pending.id, now, applied?._tag === "Right" ? applied.right.notes : [])
        if (applied !== undefined) yield* reread({ repository: pending.repository, number: pending.number })
      } else {
        const tries = pending.tries + 1
        const retryAt = retryAtAfter(tries, now)
        yield* outbox.failed(pending.id, applied.left.message, now, retryAt)
        yield* Effect.logWarning(
          `write-back ${pending.phase} of ${pending.repository}#${pending.number} failed (try ${tries}${retryAt === undefined ? ", given up" : ""}): ${applied.left.message}`
        ).pipe(Effect.annotateLogs({ runId: pending.runId, loop: pending.loop }))
      }
    }
  })
  return yield* Effect.forever(
    cycle.pipe(
      Effect.catchAllCause((cause) => Effect.logError("write-back failed; it is tried again", cause)),
      Effect.zipRight(Effect.sleep(WRITE_BACK_INTERVAL))
    )
  )
}).pipe(Effect.provide(WriteBack.Default))
