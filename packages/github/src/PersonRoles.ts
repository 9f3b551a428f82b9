import { Clock, Effect, Ref } from "effect"
import { type RepositoryRole, roleOfPermission } from "@usine/core/people/RepositoryRole"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"
import { repositoryParts } from "./repositoryParts"

/** How long a role read from GitHub is believed: a demotion takes effect within this. */
const ROLE_TTL_MS = 5 * 60_000

const keyOf = (repository: string, login: string) => `${repository.toLowerCase()}\n${login.toLowerCase()}`

/**
 * People's roles on repositories for the Board (ADR 0096), read with the daemon's own client from GitHub's
 * collaborator permission endpoint and kept five minutes. An account GitHub does not know there (404) has none.
 */
export class PersonRoles extends Effect.Service<PersonRoles>()("usine/PersonRoles", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const cache = yield* Ref.make(new Map<string, { readonly role: RepositoryRole; readonly at: number }>())

    const ask = (repository: string, login: string) =>
      client
        .request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", { ...repositoryParts(repository), username: login })
        .pipe(
          Effect.map((answer) => roleOfPermission(answer.data)),
          Effect.catchIf(
            (error) => error instanceof GitHubRequestFailed && error.status === 404,
            () => Effect.succeed<RepositoryRole>("none")
          )
        )

    const askAndKeep = (login: string, repository: string) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const role = yield* ask(repository, login)
        yield* Ref.update(cache, (map) => new Map(map).set(keyOf(repository, login), { role, at: now }))
        return role
      })

    return {
      /** The person's role on `owner/name`: cached, else asked. */
      roleOf: Effect.fn("PersonRoles.roleOf")(function* (login: string, repository: string) {
        const now = yield* Clock.currentTimeMillis
        const known = (yield* Ref.get(cache)).get(keyOf(repository, login))
        if (known !== undefined && now - known.at < ROLE_TTL_MS) return known.role
        return yield* askAndKeep(login, repository)
      }),
      /** The person's role asked again, whatever the cache holds, and kept: a promotion or demotion shows at once. */
      refresh: Effect.fn("PersonRoles.refresh")(function* (login: string, repository: string) {
        return yield* askAndKeep(login, repository)
      })
    } as const
  })
}) {}
