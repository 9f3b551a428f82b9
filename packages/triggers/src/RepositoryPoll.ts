import { Array as Arr, Effect, Option } from "effect"
import type { ItemLoop } from "@usine/core/config/CompiledLoop"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import { ItemStore, type PollCursor } from "@usine/store/ItemStore"
import { EvaluateItem, type LoopVerdict } from "./EvaluateItem"
import { ItemTrust } from "./ItemTrust"
import { GitHubClient } from "@usine/github/GitHubClient"
import { GitHubRateLimited } from "@usine/github/GitHubError"
import { type ItemKind, type ItemNode, kindOfNode } from "./ItemFields"
import { LabelSync } from "./LabelSync"
import { listChanges } from "./listChanges"
import { LoopControl } from "./LoopControl"
import { OBSERVE_BATCH, type Observation, ObserveItem } from "./ObserveItem"
import type { ItemTarget } from "@usine/github/queries/itemQueries"
import { PollFailures } from "./PollFailures"
import { repositoryParts } from "@usine/github/repositoryParts"
import { activeItemLoops, loopSignatureOf, TriggerConfig } from "./TriggerConfig"

/** Items of one repository observed and evaluated at once. */
const ITEM_CONCURRENCY = 4

/** A cursor that lists every Item of the repository again. */
const emptyCursor = (repository: string, activeLoops: string): PollCursor => ({
  repository,
  watermark: undefined,
  etag: undefined,
  openPullRequests: [],
  activeLoops
})

/** What one Item came to in a poll or a refresh. */
export interface ItemResult {
  readonly number: number
  readonly kind: ItemKind
  /** False when the Item no longer exists. */
  readonly present: boolean
  readonly open: boolean
  readonly verdicts: ReadonlyArray<LoopVerdict>
}

/** One repository's poll, for the log, the tests and the Board's poll status. */
export interface RepositoryPollReport {
  readonly repository: string
  /** The listing had no watermark: a first poll, or a cursor dropped after a pause, an unpause or a budget reset. */
  readonly fromEmpty: boolean
  readonly pages: number
  readonly notModified: boolean
  readonly items: ReadonlyArray<ItemResult>
  readonly createdLabels: ReadonlyArray<string>
  readonly cursor: PollCursor
}

/** One repository's poll: label preflight, change detection, open pull requests, observe and evaluate, cursor last. */
export class RepositoryPoll extends Effect.Service<RepositoryPoll>()("usine/RepositoryPoll", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const config = yield* TriggerConfig
    const control = yield* LoopControl
    const store = yield* ItemStore
    const labels = yield* LabelSync
    const observer = yield* ObserveItem
    const evaluator = yield* EvaluateItem
    const failures = yield* PollFailures
    const trust = yield* ItemTrust

    const activeLoops = (repository: string) =>
      Effect.map(control.pausedLoops, (paused) => activeItemLoops(config.current(), repository, paused))

    const evaluate = (observation: Observation, loops: ReadonlyArray<ItemLoop>) => {
      const { number, kind } = observation.target
      if (Option.isNone(observation.item)) return Effect.succeed<ItemResult>({ number, kind, present: false, open: false, verdicts: [] })
      const item = observation.item.value
      return evaluator.evaluate(item, loops).pipe(
        Effect.map((verdicts): ItemResult => ({ number, kind, present: true, open: item.fields.state === "open", verdicts })),
        Effect.annotateLogs({ item: item.itemKey })
      )
    }

    /** Reads the Items in batches, and evaluates each batch's Items four at a time. */
    const handleItems = (repository: string, targets: ReadonlyArray<ItemTarget>, loops: ReadonlyArray<ItemLoop>) =>
      Effect.map(
        Effect.forEach(Arr.chunksOf(targets, OBSERVE_BATCH), (batch) =>
          Effect.flatMap(observer.observeMany(repository, batch), (observations) =>
            Effect.forEach(observations, (observation) => evaluate(observation, loops), { concurrency: ITEM_CONCURRENCY })
          )
        ),
        Arr.flatten
      )

    /** A failed preflight is reported and the poll goes on, unless GitHub asked to wait. */
    const preflight = (repository: string) =>
      labels.synchronize(repository).pipe(
        Effect.catchIf(
          (error) => !(error instanceof GitHubRateLimited),
          (error) =>
            Effect.as(
              failures.record({ repository, loop: undefined, item: undefined, message: `label preflight: ${error.message}` }),
              []
            )
        )
      )

    /**
     * Polls one repository. The cursor is written only after every Item finished: any failure leaves the old
     * cursor, so the next cycle fetches the same Items again.
     */
    const poll = Effect.fn("RepositoryPoll.poll")(function* (repository: string) {
      const loops = yield* activeLoops(repository)
      yield* trust.newCycle(repository)
      const signature = loopSignatureOf(loops)
      const resets = yield* control.takeResetPending(repository)
      // The flag is consumed here, so the cursor goes at once: a failed poll must not forget the reset.
      if (resets.length > 0) yield* store.clearCursor(repository)
      const stored = yield* store.cursor(repository)
      const usable = Option.filter(stored, (cursor) => cursor.activeLoops === signature)
      const cursor = Option.getOrElse(usable, () => emptyCursor(repository, signature))
      const createdLabels = yield* preflight(repository)
      const changes = yield* listChanges(repository, cursor)
      const targets = new Map<number, ItemKind>(cursor.openPullRequests.map((number) => [number, "pull_request"]))
      for (const changed of changes.items) targets.set(changed.number, changed.kind)
      const items = yield* handleItems(repository, [...targets].map(([number, kind]) => ({ number, kind })), loops)
      const open = new Set(cursor.openPullRequests)
      for (const item of items) {
        if (item.present && item.open && item.kind === "pull_request") open.add(item.number)
        else open.delete(item.number)
      }
      const next: PollCursor = {
        repository,
        watermark: changes.watermark,
        etag: changes.etag,
        openPullRequests: [...open].sort((a, b) => a - b),
        activeLoops: signature
      }
      yield* store.saveCursor(next)
      return {
        repository,
        fromEmpty: cursor.watermark === undefined,
        pages: changes.pages,
        notModified: changes.notModified,
        items,
        createdLabels,
        cursor: next
      } satisfies RepositoryPollReport
    }, (effect, repository) => Effect.annotateLogs(effect, { repository }))

    const kindOf = (repository: string, number: number) =>
      Effect.gen(function* () {
        const known = yield* store.projection(itemKeyOf(repository, number))
        if (Option.isSome(known)) return kindOfNode(known.value.payload as ItemNode)
        const issue = yield* client.request("GET /repos/{owner}/{repo}/issues/{issue_number}", {
          ...repositoryParts(repository),
          issue_number: number
        })
        return issue.data.pull_request == null ? ("issue" as const) : ("pull_request" as const)
      })

    /** Reads one Item through the same observe and evaluate path; never touches the cursor. */
    const refresh = Effect.fn("RepositoryPoll.refresh")(function* (repository: string, number: number) {
      const loops = yield* activeLoops(repository)
      const kind = yield* kindOf(repository, number)
      const [result] = yield* handleItems(repository, [{ number, kind }], loops)
      return result!
    }, (effect, repository) => Effect.annotateLogs(effect, { repository }))

    return { poll, refresh }
  }),
  dependencies: [LabelSync.Default, ObserveItem.Default, EvaluateItem.Default, ItemTrust.Default, PollFailures.Default]
}) {}
