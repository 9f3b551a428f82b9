import { Effect, Ref } from "effect"
import { looksLikeBot } from "@usine/core/trust/ActorFacts"
import { GitHubClient } from "./GitHubClient"
import { repositoryParts } from "./repositoryParts"

/** Who added a label, and when, by the newest `labeled` event of that label; or who last renamed the Item. */
export interface Labeller {
  readonly login: string
  readonly isBot: boolean
  /** The event's time, ISO 8601. */
  readonly at: string
}

/** What an Item's issue events tell trigger trust. */
interface ItemActors {
  /** The labeller of each label ever added to the Item, by lowercase label name. */
  readonly labellers: ReadonlyMap<string, Labeller>
  /** Who changed the title last (the newest `renamed` event), if anyone did. */
  readonly renamed: Labeller | undefined
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
  readonly actors: ItemActors
}

const PER_PAGE = 100
/** A thousand events; an Item with more is judged on the first thousand. */
const MAX_PAGES = 10
const hasNext = (link: string | undefined) => link !== undefined && /rel="next"/.test(link)

const newer = (event: IssueEvent, known: IssueEvent | undefined) =>
  known === undefined || event.created_at > known.created_at || (event.created_at === known.created_at && event.id > known.id)

const actorOf = (event: IssueEvent): Labeller => {
  const login = event.actor?.login ?? "ghost"
  return { login, isBot: looksLikeBot(login) || event.actor?.type === "Bot", at: event.created_at }
}

/**
 * The newest `labeled` event of each label (lowercase name) and the newest `renamed` event: time first, event id for
 * events in the same second.
 */
const newestActors = (events: ReadonlyArray<IssueEvent>): ItemActors => {
  const newest = new Map<string, IssueEvent>()
  let renamed: IssueEvent | undefined
  for (const event of events) {
    if (event.event === "renamed" && newer(event, renamed)) renamed = event
    if (event.event !== "labeled" || event.label == null) continue
    const key = event.label.name.toLowerCase()
    if (newer(event, newest.get(key))) newest.set(key, event)
  }
  return {
    labellers: new Map([...newest].map(([label, event]) => [label, actorOf(event)])),
    renamed: renamed === undefined ? undefined : actorOf(renamed)
  }
}

/**
 * Reads who added an Item's labels, and who renamed it, from its issue events (REST: GitHub's GraphQL timeline is not in the emulator,
 * and one conditional listing per triggering Item is cheap). A one-page listing is kept with its ETag, so asking
 * again about an unchanged Item costs a 304.
 */
export class LabelActors extends Effect.Service<LabelActors>()("usine/LabelActors", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const cache = yield* Ref.make(new Map<string, Cached>())

    /** Who added each label ever added to the Item, and who renamed it last. */
    const actors = Effect.fn("LabelActors.actors")(function* (repository: string, number: number) {
      const key = `${repository.toLowerCase()}#${number}`
      const known = (yield* Ref.get(cache)).get(key)
      const params = { ...repositoryParts(repository), issue_number: number, per_page: PER_PAGE }
      const route = "GET /repos/{owner}/{repo}/issues/{issue_number}/events" as const
      const first = yield* client.conditional(route, params, known?.etag)
      if (first._tag === "NotModified" && known !== undefined) return known.actors
      const events: Array<IssueEvent> = first._tag === "Fresh" ? [...(first.data as ReadonlyArray<IssueEvent>)] : []
      let link = first._tag === "Fresh" ? first.link : undefined
      for (let page = 2; hasNext(link) && page <= MAX_PAGES; page++) {
        const next = yield* client.request(route, { ...params, page })
        events.push(...(next.data as ReadonlyArray<IssueEvent>))
        link = next.link
      }
      const result = newestActors(events)
      // New events land on the last page, so only a one-page listing has an ETag that covers them all.
      if (first._tag === "Fresh" && first.etag !== undefined && !hasNext(first.link)) {
        yield* Ref.update(cache, (map) => new Map(map).set(key, { etag: first.etag!, actors: result }))
      }
      return result
    })

    return { actors }
  })
}) {}
