import { Clock, Duration, Effect, Ref } from "effect"
import type { LabelConfig } from "@usine/core/config/LabelConfig"
import { GitHubClient } from "@usine/github/GitHubClient"
import { GitHubRequestFailed } from "@usine/github/GitHubError"
import { repositoryParts } from "@usine/github/repositoryParts"
import { TriggerConfig } from "./TriggerConfig"

/**
 * How long a synchronized catalog is trusted: a declared label deleted on GitHub is created again within this.
 * The read is conditional, so a recheck of an unchanged catalog is a free 304 (ADR 0045).
 */
export const LABEL_CATALOG_RECHECK = Duration.hours(1)

interface Catalog {
  readonly etag: string | undefined
  readonly names: ReadonlySet<string>
  /** The declared labels this catalog was last synchronized with. */
  readonly declared: string
  /** When the synchronization finished; undefined when it must run again at the next cycle. */
  readonly syncedAt: number | undefined
}

const PER_PAGE = 100
const MAX_PAGES = 10
const hasNext = (link: string | undefined) => link !== undefined && /rel="next"/.test(link)

/** Names the declared labels, so a config reload that changes them synchronizes again. */
const declaredSignatureOf = (labels: ReadonlyArray<LabelConfig>): string =>
  JSON.stringify(labels.map((label) => [label.name.toLowerCase(), label.color, label.description]))

/**
 * Label preflight: creates the labels usine.yaml declares and a repository lacks. The catalog is read (with its
 * ETag) at the first poll, after the declared labels change, after a failed preflight, and every
 * `LABEL_CATALOG_RECHECK`; the cycles in between send nothing.
 */
export class LabelSync extends Effect.Service<LabelSync>()("usine/LabelSync", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const config = yield* TriggerConfig
    const catalogs = yield* Ref.make(new Map<string, Catalog>())
    const keep = (repository: string, catalog: Catalog) =>
      Ref.update(catalogs, (m) => new Map(m).set(repository.toLowerCase(), catalog))

    const readCatalog = (repository: string, known: Catalog | undefined) =>
      Effect.gen(function* () {
        const params = { ...repositoryParts(repository), per_page: PER_PAGE }
        const first = yield* client.conditional("GET /repos/{owner}/{repo}/labels", params, known?.etag)
        if (first._tag === "NotModified" && known !== undefined) return { etag: known.etag, names: known.names }
        if (first._tag === "NotModified") return { etag: undefined, names: new Set<string>() }
        const names = first.data.map((label) => label.name.toLowerCase())
        let link = first.link
        for (let page = 2; hasNext(link) && page <= MAX_PAGES; page++) {
          const next = yield* client.request("GET /repos/{owner}/{repo}/labels", { ...params, page })
          names.push(...next.data.map((label) => label.name.toLowerCase()))
          link = next.link
        }
        // A catalog longer than a page has no single ETag that covers it.
        return { etag: hasNext(first.link) ? undefined : first.etag, names: new Set(names) }
      })

    /** Creates one declared label; a 422 means someone created it meanwhile, which is as good. */
    const create = (repository: string, label: LabelConfig) =>
      client
        .request("POST /repos/{owner}/{repo}/labels", {
          ...repositoryParts(repository),
          name: label.name,
          color: label.color,
          description: label.description
        })
        .pipe(
          Effect.asVoid,
          Effect.catchIf(
            (error) => error instanceof GitHubRequestFailed && error.status === 422,
            () => Effect.void
          )
        )

    /** Creates the declared labels the repository lacks; returns their names. A label created meanwhile is fine. */
    const synchronize = Effect.fn("LabelSync.synchronize")(function* (repository: string) {
      const settings = config.current()
      if (settings.labels.length === 0) return []
      const now = yield* Clock.currentTimeMillis
      const declared = declaredSignatureOf(settings.labels)
      const known = (yield* Ref.get(catalogs)).get(repository.toLowerCase())
      const fresh = known?.syncedAt !== undefined && now - known.syncedAt < Duration.toMillis(LABEL_CATALOG_RECHECK)
      if (fresh && known?.declared === declared) return []
      const catalog = yield* readCatalog(repository, known)
      const missing = settings.labels.filter((label) => !catalog.names.has(label.name.toLowerCase()))
      // Until every missing label is created, the next cycle reads the catalog again.
      yield* keep(repository, { ...catalog, declared, syncedAt: undefined })
      for (const label of missing) yield* create(repository, label)
      const names = new Set([...catalog.names, ...missing.map((label) => label.name.toLowerCase())])
      yield* keep(repository, { etag: catalog.etag, names, declared, syncedAt: now })
      return missing.map((label) => label.name)
    })

    /** A webhook said the repository's labels changed: the next synchronization reads its catalog again. */
    const recheck = (repository: string) =>
      Ref.update(catalogs, (m) => {
        const known = m.get(repository.toLowerCase())
        return known === undefined ? m : new Map(m).set(repository.toLowerCase(), { ...known, syncedAt: undefined })
      })

    return { synchronize, recheck }
  })
}) {}
