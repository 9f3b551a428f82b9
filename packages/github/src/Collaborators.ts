import { Effect, Ref } from "effect"
import { type ActorFacts, looksLikeBot } from "@usine/core/trust/ActorFacts"
import { GitHubClient } from "./GitHubClient"
import { GitHubRequestFailed } from "./GitHubError"
import { repositoryParts } from "./repositoryParts"

interface Entry {
  readonly etag: string | undefined
  readonly facts: ActorFacts
  /** Checked during the repository's current poll cycle. */
  readonly fresh: boolean
}

/** GitHub's legacy `permission` folds `maintain` into `write`; both it and `admin` can push. */
const PUSH = new Set(["admin", "write"])

const keyOf = (repository: string, login: string) => `${repository.toLowerCase()}\n${login.toLowerCase()}`

/** A deleted account: GitHub shows `ghost`, and nobody can hold its access. */
const GHOST = "ghost"

/**
 * Collaborator permission lookups for trigger trust, one per repository and account per poll cycle. The next cycle
 * asks again with the ETag, so an unchanged permission costs a 304, which GitHub does not charge.
 */
export class Collaborators extends Effect.Service<Collaborators>()("usine/Collaborators", {
  effect: Effect.gen(function* () {
    const client = yield* GitHubClient
    const cache = yield* Ref.make(new Map<string, Entry>())
    // One lookup at a time, so Items evaluated together never ask twice for the same account.
    const lock = yield* Effect.makeSemaphore(1)

    const ask = (repository: string, login: string, known: Entry | undefined) =>
      client
        .conditional(
          "GET /repos/{owner}/{repo}/collaborators/{username}/permission",
          { ...repositoryParts(repository), username: login },
          known?.etag
        )
        .pipe(
          Effect.map((answer): Entry => {
            if (answer._tag === "NotModified" && known !== undefined) return { ...known, fresh: true }
            if (answer._tag === "NotModified") return { etag: undefined, facts: nobody(login), fresh: true }
            const { permission, role_name: role, user } = answer.data
            const facts: ActorFacts = {
              login,
              isBot: looksLikeBot(login) || user?.type === "Bot",
              canWrite: PUSH.has(permission),
              access: permission === "none" ? "no access" : `${role || permission} access`
            }
            return { etag: answer.etag, facts, fresh: true }
          }),
          // GitHub answers 404 for an account it does not know on the repository.
          Effect.catchIf(
            (error) => error instanceof GitHubRequestFailed && error.status === 404,
            () => Effect.succeed<Entry>({ etag: undefined, facts: nobody(login), fresh: true })
          )
        )

    /** What GitHub says of `login` on the repository: push access, and whether it is a bot. */
    const facts = Effect.fn("Collaborators.facts")(function* (repository: string, login: string) {
      if (login.toLowerCase() === GHOST) return nobody(login)
      return yield* lock.withPermits(1)(
        Effect.gen(function* () {
          const key = keyOf(repository, login)
          const known = (yield* Ref.get(cache)).get(key)
          if (known?.fresh === true) return known.facts
          const entry = yield* ask(repository, login, known)
          yield* Ref.update(cache, (map) => new Map(map).set(key, entry))
          return entry.facts
        })
      )
    })

    /** Starts a repository's poll cycle: its permissions are asked again (conditionally) at their next use. */
    const newCycle = (repository: string) =>
      Ref.update(cache, (map) => {
        const prefix = `${repository.toLowerCase()}\n`
        return new Map([...map].map(([key, entry]) => [key, key.startsWith(prefix) ? { ...entry, fresh: false } : entry]))
      })

    return { facts, newCycle }
  })
}) {}

const nobody = (login: string): ActorFacts => ({ login, isBot: looksLikeBot(login), canWrite: false, access: "no access" })
