import { Effect } from "effect"
import { GitHubClient } from "@usine/github/GitHubClient"
import type { ItemKind } from "./ItemFields"
import type { PollCursor } from "@usine/store/ItemStore"
import { repositoryParts } from "@usine/github/repositoryParts"

/** The listing stops here; the next cycle continues from the watermark. */
const MAX_PAGES = 10
/** `updated_at` has one-second precision and GitHub's indexes lag: each listing looks this far behind the watermark. */
const OVERLAP_MS = 5_000
const PER_PAGE = 100

/** An Item the listing says changed. */
interface ChangedItem {
  readonly number: number
  readonly kind: ItemKind
  readonly updatedAt: string
}

/** What one cycle's change detection found, and the cursor fields it moves to once the cycle completes. */
interface ChangeListing {
  readonly items: ReadonlyArray<ChangedItem>
  readonly watermark: string | undefined
  /** The first page's ETag, kept only when it answers the next cycle's request: `since` of the new watermark. */
  readonly etag: string | undefined
  readonly pages: number
  /** The first page answered 304: nothing changed. */
  readonly notModified: boolean
}

const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")

/** The `since` of the listing that follows a watermark. */
const sinceOf = (watermark: string | undefined): string | undefined =>
  watermark === undefined ? undefined : isoSeconds(Date.parse(watermark) - OVERLAP_MS)

const hasNext = (link: string | undefined) => link !== undefined && /rel="next"/.test(link)

const later = (a: string | undefined, b: string) => (a === undefined || Date.parse(b) > Date.parse(a) ? b : a)

/**
 * Lists the Items updated since the cursor's watermark (less the overlap), oldest first, at most `MAX_PAGES` pages.
 * The first page is conditional. An ETag is kept only for a one-page answer whose `since` the next cycle repeats
 * (nothing newer than the watermark showed up), so a cursor's ETag always belongs to `sinceOf(watermark)` and an
 * idle repository costs one 304.
 */
export const listChanges = Effect.fn("RepositoryPoll.listChanges")(function* (repository: string, cursor: PollCursor) {
  const client = yield* GitHubClient
  const since = sinceOf(cursor.watermark)
  const params = {
    ...repositoryParts(repository),
    state: "all" as const,
    sort: "updated" as const,
    direction: "asc" as const,
    per_page: PER_PAGE,
    ...(since === undefined ? {} : { since })
  }
  const first = yield* client.conditional("GET /repos/{owner}/{repo}/issues", params, cursor.etag)
  if (first._tag === "NotModified") {
    return { items: [], watermark: cursor.watermark, etag: cursor.etag, pages: 1, notModified: true } satisfies ChangeListing
  }
  const pages = [first.data]
  let link = first.link
  while (hasNext(link) && pages.length < MAX_PAGES) {
    const next = yield* client.request("GET /repos/{owner}/{repo}/issues", { ...params, page: pages.length + 1 })
    pages.push(next.data)
    link = next.link
  }
  const seen = new Map<number, ChangedItem>()
  let watermark = cursor.watermark
  for (const issue of pages.flat()) {
    seen.set(issue.number, {
      number: issue.number,
      kind: issue.pull_request === undefined || issue.pull_request === null ? "issue" : "pull_request",
      updatedAt: issue.updated_at
    })
    watermark = later(watermark, issue.updated_at)
  }
  const reusable = pages.length === 1 && !hasNext(first.link) && sinceOf(watermark) === since
  const etag = reusable ? first.etag : undefined
  return { items: [...seen.values()], watermark, etag, pages: pages.length, notModified: false } satisfies ChangeListing
})
