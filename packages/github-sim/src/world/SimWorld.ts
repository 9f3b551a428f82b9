import { Effect } from "effect"
import { Forbidden, NotFound, Unauthorized } from "./ApiError"
import { FineGrainedTokens } from "./FineGrainedTokens"
import { SimApps } from "./SimApps"
import { SimOAuthApps } from "./SimOAuthApps"
import type { SimClock } from "./SimClock"
import type { SimRepository } from "./SimRepository"
import { atLeast, type Permission, type SimUser } from "./SimUser"

/** The whole emulated GitHub: accounts, repositories, the id sequence and the clock. */
export class SimWorld {
  readonly users = new Map<string, SimUser>()
  readonly tokens = new Map<string, SimUser>()
  readonly repositories = new Map<string, SimRepository>()
  /** Fine-grained tokens' grants, which narrow their account's role. */
  readonly fineGrained = new FineGrainedTokens()
  /** GitHub Apps and the installation tokens minted for them. */
  readonly apps = new SimApps()
  /** OAuth Apps people authorize in the web flow, and the codes they grant. */
  readonly oauth = new SimOAuthApps()
  /** Organizations' teams by `org/team-slug` (lower case): their members' logins (lower case) and roles. */
  readonly teams = new Map<string, Map<string, "member" | "maintainer">>()
  private lastId = 1000
  /** The emulator's origin (`http://127.0.0.1:PORT`), known once the server listens. */
  baseUrl = "http://127.0.0.1"

  constructor(
    readonly clock: SimClock,
    readonly dataDir: string
  ) {}

  now(): number {
    return this.clock.now()
  }

  /** Database ids: one sequence for every kind of object, like GitHub's distinct-enough ids. */
  nextId(): number {
    this.lastId += 1
    return this.lastId
  }

  /** The account a token authenticates as: a user's token, or a live installation token's App bot. */
  userOfToken(token: string): SimUser | undefined {
    return this.tokens.get(token) ?? this.apps.userOf(token, this.now())
  }

  /** The user a token belongs to; an expired installation token is "Bad credentials". */
  authenticate(token: string | undefined): Effect.Effect<SimUser, Unauthorized> {
    if (token === undefined) return Effect.fail(new Unauthorized({ reason: "missing" }))
    const user = this.userOfToken(token)
    return user === undefined ? Effect.fail(new Unauthorized({ reason: "bad" })) : Effect.succeed(user)
  }

  user(login: string): Effect.Effect<SimUser, NotFound> {
    const user = this.users.get(login.toLowerCase())
    return user === undefined ? Effect.fail(new NotFound({ resource: `user ${login}` })) : Effect.succeed(user)
  }

  /** The account named `login`, registered on first mention (without a token) when a control call names it. */
  account(login: string): SimUser {
    const known = this.users.get(login.toLowerCase())
    if (known !== undefined) return known
    const user: SimUser = {
      id: this.nextId(),
      login,
      token: "",
      type: login.endsWith("[bot]") ? "Bot" : "User",
      createdAt: this.now(),
      defaultPermission: "none",
      repositories: new Map()
    }
    this.users.set(login.toLowerCase(), user)
    return user
  }

  repository(owner: string, name: string): Effect.Effect<SimRepository, NotFound> {
    const repo = this.repositories.get(`${owner}/${name}`.toLowerCase())
    return repo === undefined ? Effect.fail(new NotFound({ resource: `repository ${owner}/${name}` })) : Effect.succeed(repo)
  }

  /** The user's role on the repository; the owner account is admin. */
  permission(login: string, repo: SimRepository): Permission {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return "admin"
    const user = this.users.get(login.toLowerCase())
    if (user === undefined) return "none"
    return user.repositories.get(repo.fullName.toLowerCase()) ?? user.defaultPermission
  }

  /** A repository the user may see: with no read access it does not exist for them (404). */
  visibleRepository(user: SimUser, owner: string, name: string): Effect.Effect<SimRepository, NotFound> {
    return Effect.flatMap(this.repository(owner, name), (repo) =>
      atLeast(this.permission(user.login, repo), "read") || !repo.isPrivate
        ? Effect.succeed(repo)
        : Effect.fail(new NotFound({ resource: `repository ${owner}/${name}` }))
    )
  }

  /** Fails with 403 unless the user holds at least `needed` on the repository. */
  authorize(user: SimUser, repo: SimRepository, needed: Permission, action: string): Effect.Effect<void, Forbidden> {
    return atLeast(this.permission(user.login, repo), needed) ? Effect.void : Effect.fail(new Forbidden({ action }))
  }

  /** GitHub's author association of `login` on the repository; read-only accounts are not collaborators. */
  association(login: string, repo: SimRepository): "OWNER" | "COLLABORATOR" | "NONE" {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return "OWNER"
    return atLeast(this.permission(login, repo), "triage") ? "COLLABORATOR" : "NONE"
  }
}
