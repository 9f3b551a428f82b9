/** Sign-in with GitHub as the Board runs it (`board.auth.github`, ADR 0098); the client secret stays with the app. */
export interface SignInSettings {
  readonly clientId: string
  /** `<board.host_name>/auth/github/callback`: where GitHub sends the person back, registered on the OAuth App. */
  readonly callbackUrl: string
  /** GitHub's web origin, where `/login/oauth/authorize` is (`https://github.com` for api.github.com). */
  readonly webUrl: string
  /** `board.allow`, lower case: only these logins sign in; empty, anyone with read access to a repository. */
  readonly allow: ReadonlyArray<string>
}
