import { execFile } from "node:child_process"
import { stat, readFile } from "node:fs/promises"
import { Data, Effect, Redacted } from "effect"

/** No GitHub token could be found, or the one found may not be used. */
export class GitHubTokenMissing extends Data.TaggedError("GitHubTokenMissing")<{ readonly detail: string }> {
  override get message() {
    return `no usable GitHub token: ${this.detail}`
  }
}

export interface TokenSources {
  /** `github.token` from usine.yaml, after `${ENV}` interpolation. */
  readonly token: string | undefined
  /** `github.token_file`: must be readable by its owner only. */
  readonly tokenFile: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  /** Whether to ask the GitHub CLI (`gh auth token`) as a last resort. */
  readonly useGhCli: boolean
}

/** A secret in a file only its owner may read (`github.token_file`, `github.app.private_key_file`), trimmed. */
export const ownerOnlyFile = (field: string, path: string) =>
  Effect.gen(function* () {
    const info = yield* Effect.tryPromise({
      try: () => stat(path),
      catch: () => new GitHubTokenMissing({ detail: `${field} ${path} cannot be read` })
    })
    if ((info.mode & 0o077) !== 0)
      return yield* Effect.fail(
        new GitHubTokenMissing({
          detail: `${field} ${path} has mode ${(info.mode & 0o777).toString(8)}; make it readable by its owner only (chmod 600)`
        })
      )
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: () => new GitHubTokenMissing({ detail: `${field} ${path} cannot be read` })
    })
    const secret = text.trim()
    if (secret === "") return yield* Effect.fail(new GitHubTokenMissing({ detail: `${field} ${path} is empty` }))
    return secret
  })

const fromGhCli = Effect.async<string | undefined>((resume) => {
  const child = execFile("gh", ["auth", "token"], { timeout: 5000 }, (error, stdout) => {
    resume(Effect.succeed(error ? undefined : stdout.trim() || undefined))
  })
  return Effect.sync(() => child.kill())
})

/** The token, in order: usine.yaml, its token file, `GITHUB_TOKEN`/`GH_TOKEN`, then `gh auth token`. */
export const resolveToken = (sources: TokenSources): Effect.Effect<Redacted.Redacted<string>, GitHubTokenMissing> =>
  Effect.gen(function* () {
    if (sources.token !== undefined && sources.token.trim() !== "") return Redacted.make(sources.token.trim())
    if (sources.tokenFile !== undefined) return Redacted.make(yield* ownerOnlyFile("github.token_file", sources.tokenFile))
    const env = sources.env["GITHUB_TOKEN"] ?? sources.env["GH_TOKEN"]
    if (env !== undefined && env.trim() !== "") return Redacted.make(env.trim())
    if (sources.useGhCli) {
      const gh = yield* fromGhCli
      if (gh !== undefined) return Redacted.make(gh)
    }
    return yield* Effect.fail(
      new GitHubTokenMissing({
        detail: "set github.token or github.token_file in usine.yaml, export GITHUB_TOKEN, or log in with `gh auth login`"
      })
    )
  })
