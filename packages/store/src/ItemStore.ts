import { Context, type Effect, type Option } from "effect"
import type { ItemKey } from "@usine/core/ids/ItemKey"

/** What polling last saw of an issue or pull request; the Board reads it too. */
interface ItemProjection {
  readonly itemKey: ItemKey
  /** Stored and read back lowercase, like the Item key. */
  readonly repository: string
  readonly number: number
  /** The GraphQL payload slice as fetched. */
  readonly payload: unknown
  readonly contentHash: string
  /** When this content was first observed: a re-observation with the same content hash changes nothing. */
  readonly observedAt: number
}

/** Where a repository's next poll starts. */
export interface PollCursor {
  readonly repository: string
  /** The newest `updated_at` seen (GitHub's ISO timestamp); the next listing asks `since` five seconds before. */
  readonly watermark: string | undefined
  readonly etag: string | undefined
  /** Open pull requests to fetch again every cycle. */
  readonly openPullRequests: ReadonlyArray<number>
  /** The active Loops the cursor was built for; a different set starts from an empty cursor. */
  readonly activeLoops: string
}

/** Item projections and poll cursors. */
export class ItemStore extends Context.Tag("usine/ItemStore")<
  ItemStore,
  {
    /** Stores an Item's projection; the stored row changes only when the content hash does. */
    readonly saveProjection: (projection: ItemProjection) => Effect.Effect<void>
    /** An Item's projection, if it was ever observed. */
    readonly projection: (itemKey: ItemKey) => Effect.Effect<Option.Option<ItemProjection>>
    /** Every projection of a repository, by number. */
    readonly projections: (repository: string) => Effect.Effect<ReadonlyArray<ItemProjection>>
    /** Stores (replaces) a repository's cursor. */
    readonly saveCursor: (cursor: PollCursor) => Effect.Effect<void>
    /** A repository's cursor; none means poll from scratch. */
    readonly cursor: (repository: string) => Effect.Effect<Option.Option<PollCursor>>
    /** Forgets a repository's cursor, so its next poll starts from scratch. */
    readonly clearCursor: (repository: string) => Effect.Effect<void>
  }
>() {}
