import { Context, type Effect, Schema } from "effect"

/** GitHub did not vouch for the person: the code was refused, or `GET /user` failed. */
export class SignInRefused extends Schema.TaggedError<SignInRefused>()("SignInRefused", { detail: Schema.String }) {
  override get message() {
    return `GitHub refused the sign-in: ${this.detail}`
  }
}

/**
 * The daemon's side of GitHub's OAuth web flow: the app implements it with the OAuth App's secret, which the Board
 * never holds (ADR 0098).
 */
export class GitHubSignIn extends Context.Tag("usine/GitHubSignIn")<
  GitHubSignIn,
  {
    /**
     * Exchanges the code GitHub sent back (with the PKCE verifier and the same redirect URI) for a user token, reads
     * `GET /user` with it and answers the person's login; the token itself is dropped.
     */
    readonly exchange: (input: {
      readonly code: string
      readonly codeVerifier: string
      readonly redirectUri: string
    }) => Effect.Effect<{ readonly login: string }, SignInRefused>
  }
>() {}
