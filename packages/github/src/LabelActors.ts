import { Effect, Ref } from "effect"
import { looksLikeBot } from "@usine/core/trust/ActorFacts"
import { GitHubClient } from "./GitHubClient"
import { repositoryParts } from "./repositoryParts"

/** Who added a label, by the newest `labeled` event of that label. */
export interface Labeller {
  readonly login: string
  readonly isBot: boolean
}

interface IssueEvent {
  readonly id: number
  readonly event: string
  readonly created_at: string
  readonly actor?: { readonly login: string; readonly type?: string } | null
  readonly label?: { readonly name: string } | null
}

interface Cached {
  readonly etag: string
  readonly labellers: ReadonlyMap<string, Labeller>
}

const PER_PAGE = 100
/** A thousand events; an Item with more is judged on the first thousand. */
const MAX_PAGES = 10
const hasNext = (link: string | undefined) => link !== undefined && /rel="next"/.test(link)

/** The newest `labeled` event of each label (lowercase name): time first, event id for events in the same second. */
const newestLabellers = (events: ReadonlyArray<IssueEvent>): ReadonlyMap<string, Labeller> => {
  const newest = new Map<string, IssueEvent>()
  for (const event of events) {
    if (event.event !== "labeled" || event.label == null) continue
    const key = event.label.name.toLowerCase()
    const known = newest.get(key)
    if (known === undefined || event.created_at > known.created_at || (event.created_at === known.created_at && event.id > known.id)) {
      newest.set(key, event)
    }
  }
  return new Map(
    [...newest].map(([label, event]) => {
      const login = event.actor?.login ?? "ghost"
      return [label, { login, isBot: looksLikeBot(login) || event.actor?.type === "Bot" }]
    })
  )
}

/**
 * Reads who added an Item's labels from its issue events (REST: GitHub's GraphQL timeline is not in the emulator,
 * and one conditional listing per triggering Item is cheap). A one-page listing is kept with its ETag, so asking
 * again about an unchanged Item costs a 304.
 */
export class LabelActors extends Effect.Service<LabelActors>()("usine/LabelActors", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const cache = yield* Ref.make(new Map<string, Cached>())

    /** The labeller of each label ever added to the Item, by lowercase label name. */
    const labellers = Effect.fn("LabelActors.labellers")(function* (repository: string, number: number) {
      const key = `${repository.toLowerCase()}#${number}`
      const known = (yield* Ref.get(cache)).get(key)
      const params = { ...repositoryParts(repository), issue_number: number, per_page: PER_PAGE }
      const route = "GET /repos/{owner}/{repo}/issues/{issue_number}/events" as const
      const first = yield* client.conditional(route, params, known?.etag)
      if (first._tag === "NotModified" && known !== undefined) return known.labellers
      const events: Array<IssueEvent> = first._tag === "Fresh" ? [...(first.data as ReadonlyArray<IssueEvent>)] : []
      let link = first._tag === "Fresh" ? first.link : undefined
      for (let page = 2; hasNext(link) && page <= MAX_PAGES; page++) {
        const next = yield* client.request(route, { ...params, page })
        events.push(...(next.data as ReadonlyArray<IssueEvent>))
        link = next.link
      }
      const result = newestLabellers(events)
      // New events land on the last page, so only a one-page listing has an ETag that covers them all.
      if (first._tag === "Fresh" && first.etag !== undefined && !hasNext(first.link)) {
        yield* Ref.update(cache, (map) => new Map(map).set(key, { etag: first.etag!, labellers: result }))
      }
      return result
    })

    return { labellers }
  })
}) {}
