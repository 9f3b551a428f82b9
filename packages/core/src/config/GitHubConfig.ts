import { Option, ParseResult, Schema } from "effect"
import { NonEmptyString, PositiveInt, Secret } from "./ConfigScalars"

const ApiUrl = Schema.transformOrFail(Schema.String.annotations({ description: "an http(s) URL" }), Schema.String, {
  strict: true,
  decode: (url, _, ast) => {
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    return parsed && (parsed.protocol === "https:" || parsed.protocol === "http:")
      ? ParseResult.succeed(url.replace(/\/+$/, ""))
      : ParseResult.fail(new ParseResult.Type(ast, url, `expected an http(s) URL like https://api.github.com, got ${JSON.stringify(url)}`))
  },
  encode: ParseResult.succeed
})

/** A GitHub App usine acts as: its installation tokens, refreshed before they expire, authenticate as `<slug>[bot]`. */
const GitHubAppConfig = Schema.Struct({
  /** The App's id (its settings page, "App ID"). */
  id: PositiveInt,
  /** The App's private key (PEM), readable by its owner only like `token_file`. */
  privateKeyFile: NonEmptyString.pipe(Schema.propertySignature, Schema.fromKey("private_key_file")),
  /** The installation to mint tokens for; by default the one installed on the first repository. */
  installationId: Schema.optional(PositiveInt).pipe(Schema.fromKey("installation_id"))
})
type GitHubAppConfig = typeof GitHubAppConfig.Type

/**
 * How usine reaches GitHub: as a GitHub App (`app`), or with a token resolved at start, first found wins: `token`,
 * `token_file`, then `GITHUB_TOKEN` / `GH_TOKEN`, then `gh auth token`. An App excludes `token` and `token_file`.
 */
export const GitHubConfig = Schema.Struct({
  token: Schema.optionalWith(Secret, { default: () => Option.none() }),
  tokenFile: Schema.optional(NonEmptyString).pipe(Schema.fromKey("token_file")),
  app: Schema.optional(GitHubAppConfig),
  /** GitHub's REST root; a GitHub Enterprise server's `/api/v3`, or the emulator's address. */
  apiUrl: Schema.optionalWith(ApiUrl, { default: () => "https://api.github.com" }).pipe(Schema.fromKey("api_url")),
  /** Enables `POST /webhooks/github` on the Board's listener: deliveries signed with it become Hints (ADR 0059). */
  webhookSecret: Schema.optionalWith(Secret, { default: () => Option.none() }).pipe(Schema.fromKey("webhook_secret"))
}).pipe(
  Schema.filter((github) =>
    github.app === undefined || (Option.isNone(github.token) && github.tokenFile === undefined)
      ? true
      : {
          path: ["app"],
          message: `github.app and github.${Option.isSome(github.token) ? "token" : "token_file"} are both set: usine authenticates one way, remove one`
        }
  )
)
export type GitHubConfig = typeof GitHubConfig.Type
