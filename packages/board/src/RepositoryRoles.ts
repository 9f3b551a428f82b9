import { Context, type Effect, Schema } from "effect"
import type { RepositoryRole } from "@usine/core/people/RepositoryRole"

/** GitHub could not say what the person may do on the repository. */
export class RoleUnknown extends Schema.TaggedError<RoleUnknown>()("RoleUnknown", {
  login: Schema.String,
  repository: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return `could not read @${this.login}'s role on ${this.repository} from GitHub: ${this.detail}`
  }
}

/** A person's role on a repository, as GitHub says: the app implements it with the daemon's client and a cache. */
export class RepositoryRoles extends Context.Tag("usine/RepositoryRoles")<
  RepositoryRoles,
  {
    /** The person's role on `owner/name` (`none` for an account GitHub does not know there); cached a few minutes. */
    readonly roleOf: (login: string, repository: string) => Effect.Effect<RepositoryRole, RoleUnknown>
    /** The person's role asked of GitHub again, past the cache, which keeps the answer. */
    readonly refresh: (login: string, repository: string) => Effect.Effect<RepositoryRole, RoleUnknown>
  }
>() {}
