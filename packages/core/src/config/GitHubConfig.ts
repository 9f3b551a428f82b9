import { Option, ParseResult, Schema } from "effect"
import { NonEmptyString, Secret } from "./ConfigScalars"

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

/**
 * How usine reaches GitHub. The token is resolved at start, first found wins: `token`, `token_file`,
 * then `gh auth token`.
 */
export const GitHubConfig = Schema.Struct({
  token: Schema.optionalWith(Secret, { default: () => Option.none() }),
  tokenFile: Schema.optional(NonEmptyString).pipe(Schema.fromKey("token_file")),
  /** GitHub's REST root; a GitHub Enterprise server's `/api/v3`, or the emulator's address. */
  apiUrl: Schema.optionalWith(ApiUrl, { default: () => "https://api.github.com" }).pipe(Schema.fromKey("api_url")),
  /** Enables `POST /webhooks/github` on the Board's listener: deliveries signed with it become Hints (ADR 0059). */
  webhookSecret: Schema.optionalWith(Secret, { default: () => Option.none() }).pipe(Schema.fromKey("webhook_secret"))
})
export type GitHubConfig = typeof GitHubConfig.Type
