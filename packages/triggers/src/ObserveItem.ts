import { Clock, Effect, Option } from "effect"
import { contentHash } from "@usine/core/content/contentHash"
import { type ItemKey, itemKeyOf } from "@usine/core/ids/ItemKey"
import { ItemStore } from "@usine/store/ItemStore"
import { GitHubClient, graphqlFailed } from "@usine/github/GitHubClient"
import { type BodyEdit, bodyEditOf, type ItemFields, type ItemKind, type ItemNode, itemFieldsOf } from "./ItemFields"
import { LoopControl } from "./LoopControl"
import { aliasOf, type ItemTarget, itemsQuery } from "@usine/github/queries/itemQueries"
import { repositoryParts } from "@usine/github/repositoryParts"

/** Items read in one GraphQL document: one request, and about two points of GitHub's GraphQL budget. */
export const OBSERVE_BATCH = 25

/** An Item as one observation read it: what `if:`, the prompt and the dedup key need. */
export interface ObservedItem {
  readonly itemKey: ItemKey
  /** As usine.yaml spells it. */
  readonly repository: string
  readonly number: number
  readonly kind: ItemKind
  readonly fields: ItemFields
  /** The body's last edit, for trigger trust (ADR 0055); the Loop's view and its hash leave it out. */
  readonly lastEdit: BodyEdit | undefined
  /** The Item's cycle generation, read before the fetch. */
  readonly generation: number
}

/** One target of a batch: its observation, or None when the Item no longer exists (deleted, transferred). */
export interface Observation {
  readonly target: ItemTarget
  readonly item: Option.Option<ObservedItem>
}

type SliceData = { readonly repository: Readonly<Record<string, ItemNode | null>> | null }

/**
 * Reads Items' GraphQL payload slices and stores each as the Item's projection, with the hash of the raw slice (the
 * Board's record of what was read). An Event's content hash is another: each Loop's view of the Item (ADR 0055).
 */
export class ObserveItem extends Effect.Service<ObserveItem>()("usine/ObserveItem", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const items = yield* ItemStore
    const control = yield* LoopControl

    /** The nodes by alias; an Item whose only errors are NOT_FOUND is gone, any other error fails the batch. */
    const fetchNodes = Effect.fn("ObserveItem.fetchNodes")(function* (
      repository: string,
      targets: ReadonlyArray<ItemTarget>
    ) {
      const { owner, repo } = repositoryParts(repository)
      const answer = yield* client.graphqlPartial<SliceData>(itemsQuery(targets), { owner, name: repo })
      const aliases = new Set(targets.map(aliasOf))
      const fatal = answer.errors.filter(
        (e) => e.type !== "NOT_FOUND" || e.path[0] !== "repository" || !aliases.has(String(e.path[1]))
      )
      if (fatal.length > 0 || answer.data?.repository == null) return yield* Effect.fail(graphqlFailed(fatal.length > 0 ? fatal : answer.errors))
      return answer.data.repository
    })

    /**
     * Fetches up to `OBSERVE_BATCH` Items of one repository in one request and stores each projection with the
     * hash of its raw node (timestamps left out). Generations are read before the fetch.
     */
    const observeMany = Effect.fn("ObserveItem.observeMany")(function* (
      repository: string,
      targets: ReadonlyArray<ItemTarget>
    ) {
      const generations = yield* Effect.forEach(targets, (t) => control.generation(itemKeyOf(repository, t.number)))
      const nodes = yield* fetchNodes(repository, targets)
      const observedAt = yield* Clock.currentTimeMillis
      return yield* Effect.forEach(targets, (target, index) =>
        Effect.gen(function* () {
          const node = nodes[aliasOf(target)]
          if (node == null) return { target, item: Option.none() } satisfies Observation
          const itemKey = itemKeyOf(repository, target.number)
          const hash = contentHash(node)
          yield* items.saveProjection({ itemKey, repository, number: target.number, payload: node, contentHash: hash, observedAt })
          const item: ObservedItem = {
            itemKey,
            repository,
            number: target.number,
            kind: target.kind,
            fields: itemFieldsOf(target.kind, node),
            lastEdit: bodyEditOf(node),
            generation: generations[index] ?? 0
          }
          return { target, item: Option.some(item) } satisfies Observation
        })
      )
    })

    /** One Item; None when it is gone. */
    const observe = (repository: string, number: number, kind: ItemKind) =>
      Effect.map(observeMany(repository, [{ number, kind }]), ([only]) => only?.item ?? Option.none<ObservedItem>())

    return { observe, observeMany }
  })
}) {}
