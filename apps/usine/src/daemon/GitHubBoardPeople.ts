import { Effect, Layer, Redacted } from "effect"
import { GitHubSignIn, SignInRefused } from "@usine/board/GitHubSignIn"
import { ItemLabellers, LabellerUnknown } from "@usine/board/ItemLabellers"
import { RepositoryRoles, RoleUnknown } from "@usine/board/RepositoryRoles"
import { githubWebUrl } from "@usine/core/config/githubWebUrl"
import { makeOAuthWebFlow } from "@usine/github/OAuthWebFlow"
import { LabelActors } from "@usine/github/LabelActors"
import { PersonRoles } from "@usine/github/PersonRoles"
import { TeamMemberships } from "@usine/github/TeamMemberships"
import { TeamMembers, TeamUnknown } from "@usine/board/TeamMembers"
import { labellerOf } from "@usine/github/WriteBack/nameReviewers"

/** The OAuth App people sign in to the Board with, its secret resolved at start (`board.auth.github`). */
export interface SignInApp {
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly apiUrl: string
}

/** People's roles for the Board, read with the daemon's GitHub client (ADR 0096). */
export const GitHubRepositoryRoles = Layer.effect(
  RepositoryRoles,
  Effect.map(PersonRoles, (roles) => {
    const unknown = (login: string, repository: string) => (error: { readonly message: string }) =>
      new RoleUnknown({ login, repository, detail: error.message })
    return RepositoryRoles.of({
      roleOf: (login, repository) => roles.roleOf(login, repository).pipe(Effect.mapError(unknown(login, repository))),
      refresh: (login, repository) => roles.refresh(login, repository).pipe(Effect.mapError(unknown(login, repository)))
    })
  })
).pipe(Layer.provide(PersonRoles.Default))

/** Membership of `board.allow`'s `org/team` entries, read with the daemon's GitHub client at each sign-in. */
export const GitHubTeamMembers = Layer.effect(
  TeamMembers,
  Effect.map(TeamMemberships, (memberships) =>
    TeamMembers.of({
      isMember: (team, login) => {
        const [org = "", slug = ""] = team.split("/")
        return memberships.isMember(org, slug, login).pipe(
          Effect.mapError((error) => new TeamUnknown({ team, login, detail: error.message }))
        )
      }
    }))
).pipe(Layer.provide(TeamMemberships.Default))

/** Who labelled an Item into a Loop, from its issue events as the write-back's `labeller` reviewer reads them. */
export const GitHubItemLabellers = (self: string) =>
  Layer.effect(
    ItemLabellers,
    Effect.map(LabelActors, (actors) =>
      ItemLabellers.of({
        labellerOf: ({ number, repository }, ifSource, receivedAt) =>
          actors.actors(repository, number).pipe(
            Effect.map(({ labellers }) => labellerOf({ ifSource, receivedAt, self }, labellers)),
            Effect.mapError((error) => new LabellerUnknown({ repository, number, detail: error.message }))
          )
      }))
  ).pipe(Layer.provide(LabelActors.Default))

/**
 * The daemon's half of sign-in with GitHub: the code exchange with the App's secret. Without `board.auth.github` the
 * Board offers no sign-in, and an exchange would be refused.
 */
export const GitHubBoardSignIn = (app: SignInApp | undefined): Layer.Layer<GitHubSignIn> => {
  if (app === undefined) {
    return Layer.succeed(GitHubSignIn, { exchange: () => new SignInRefused({ detail: "board.auth.github is not set" }) })
  }
  const flow = makeOAuthWebFlow({ ...app, webUrl: githubWebUrl(app.apiUrl) })
  return Layer.succeed(GitHubSignIn, {
    exchange: (input) => flow.exchange(input).pipe(Effect.mapError((error) => new SignInRefused({ detail: error.detail })))
  })
}
