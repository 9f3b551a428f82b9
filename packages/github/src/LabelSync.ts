import { Effect, Ref } from "effect"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"
import { repositoryParts } from "./repositoryParts"
import { TriggerConfig } from "./TriggerConfig"

interface Catalog {
  readonly etag: string | undefined
  readonly names: ReadonlySet<string>
}

const PER_PAGE = 100
const MAX_PAGES = 10
const hasNext = (link: string | undefined) => link !== undefined && /rel="next"/.test(link)

/** Label preflight: creates the labels usine.yaml declares and a repository lacks, reading the catalog with its ETag. */
export class LabelSync extends Effect.Service<LabelSync>()("usine/LabelSync", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const settings = yield* TriggerConfig
    const catalogs = yield* Ref.make(new Map<string, Catalog>())

    const readCatalog = (repository: string) =>
      Effect.gen(function* () {
        const known = (yield* Ref.get(catalogs)).get(repository.toLowerCase())
        const params = { ...repositoryParts(repository), per_page: PER_PAGE }
        const first = yield* client.conditional("GET /repos/{owner}/{repo}/labels", params, known?.etag)
        if (first._tag === "NotModified" && known !== undefined) return known
        if (first._tag === "NotModified") return { etag: undefined, names: new Set<string>() }
        const names = first.data.map((label) => label.name.toLowerCase())
        let link = first.link
        for (let page = 2; hasNext(link) && page <= MAX_PAGES; page++) {
          const next = yield* client.request("GET /repos/{owner}/{repo}/labels", { ...params, page })
          names.push(...next.data.map((label) => label.name.toLowerCase()))
          link = next.link
        }
        // A catalog longer than a page has no single ETag that covers it.
        const catalog: Catalog = { etag: hasNext(first.link) ? undefined : first.etag, names: new Set(names) }
        yield* Ref.update(catalogs, (m) => new Map(m).set(repository.toLowerCase(), catalog))
        return catalog
      })

    /** Creates the declared labels the repository lacks; returns their names. A label created meanwhile is fine. */
    const synchronize = Effect.fn("LabelSync.synchronize")(function* (repository: string) {
      if (settings.labels.length === 0) return []
      const catalog = yield* readCatalog(repository)
      const missing = settings.labels.filter((label) => !catalog.names.has(label.name.toLowerCase()))
      for (const label of missing) {
        yield* client
          .request("POST /repos/{owner}/{repo}/labels", {
            ...repositoryParts(repository),
            name: label.name,
            color: label.color,
            description: label.description
          })
          .pipe(
            Effect.catchIf(
              (error) => error instanceof GitHubRequestFailed && error.status === 422,
              () => Effect.void
            )
          )
      }
      if (missing.length > 0) {
        const names = new Set([...catalog.names, ...missing.map((label) => label.name.toLowerCase())])
        yield* Ref.update(catalogs, (m) => new Map(m).set(repository.toLowerCase(), { etag: catalog.etag, names }))
      }
      return missing.map((label) => label.name)
    })

    return { synchronize }
  })
}) {}
