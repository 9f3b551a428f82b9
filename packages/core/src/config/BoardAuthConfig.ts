import { Option, Schema } from "effect"
import { NonEmptyString, Secret } from "./ConfigScalars"

/**
 * An OAuth App (or a GitHub App's user authorization) people sign in to the Board with (ADR 0096). Its callback URL
 * is `<board.host_name>/auth/github/callback`; the secret is given inline or read from a file at start.
 */
const GitHubSignInConfig = Schema.Struct({
  clientId: NonEmptyString.pipe(Schema.propertySignature, Schema.fromKey("client_id")),
  clientSecret: Schema.optionalWith(Secret, { default: () => Option.none() }).pipe(Schema.fromKey("client_secret")),
  clientSecretFile: Schema.optional(NonEmptyString).pipe(Schema.fromKey("client_secret_file"))
}).pipe(
  Schema.filter((github) => {
    const inline = Option.isSome(github.clientSecret)
    const file = github.clientSecretFile !== undefined
    if (inline && file) return { path: ["client_secret_file"], message: "client_secret and client_secret_file are both set: remove one" }
    return inline || file || { path: ["client_secret"], message: "set client_secret or client_secret_file: the OAuth App's client secret" }
  })
)

/** How people sign in to the Board; absent: the Board token alone. */
export const BoardAuthConfig = Schema.Struct({ github: GitHubSignInConfig })
export type BoardAuthConfig = typeof BoardAuthConfig.Type
