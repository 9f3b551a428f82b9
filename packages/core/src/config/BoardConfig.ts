import { Duration, Option, ParseResult, Redacted, Schema } from "effect"
import { GitHubLogin } from "../trust/TrustPolicy"
import { BoardAuthConfig } from "./BoardAuthConfig"
import { Interval, NonEmptyString } from "./ConfigScalars"

/** A `board.allow` entry: a GitHub login, or an organization's team as `org/team-slug`. */
const AllowEntry = Schema.String.pipe(
  Schema.filter((entry) =>
    /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(entry) || /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9][A-Za-z0-9_-]*$/.test(entry)
  ),
  Schema.annotations({ description: "a GitHub login (like `octocat`) or an organization's team (like `acme/reviewers`)" })
)

/** The shortest `board.token` accepted: guessing one over the network must be hopeless. */
const MIN_BOARD_TOKEN_LENGTH = 32

/** The Board's token; an empty string (`${USINE_BOARD_TOKEN:-}` unset) means none, anything shorter than 32 fails. */
const BoardToken = Schema.transformOrFail(
  Schema.String.annotations({ description: "a string" }),
  Schema.OptionFromSelf(Schema.RedactedFromSelf(Schema.String)),
  {
    strict: true,
    decode: (text, _, ast) =>
      text === ""
        ? ParseResult.succeed(Option.none())
        : text.length >= MIN_BOARD_TOKEN_LENGTH
        ? ParseResult.succeed(Option.some(Redacted.make(text)))
        : ParseResult.fail(
            new ParseResult.Type(
              ast,
              Redacted.make(text),
              `expected a token of at least ${MIN_BOARD_TOKEN_LENGTH} characters, got ${text.length} (try \`openssl rand -hex 32\`)`
            )
          ),
    encode: (secret) => ParseResult.succeed(Option.match(secret, { onNone: () => "", onSome: Redacted.value }))
  }
)

/** `usine.example.com`, `usine.example.com:8443`, or the URL the Board is reached at (`https://usine.example.com`). */
const HostName = NonEmptyString.pipe(
  Schema.filter((name) => {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) return /^[^\s/]+$/.test(name) || "expected a host name like usine.example.com"
    try {
      const url = new URL(name)
      return ((url.protocol === "https:" || url.protocol === "http:") && url.pathname === "/" && url.search === "" && url.username === "") ||
        "expected a host name, or an http(s) URL with nothing after the host, like https://usine.example.com"
    } catch {
      return "expected a host name, or an http(s) URL like https://usine.example.com"
    }
  })
)

/** `host:port`; `[::1]:8787` for IPv6. */
const ListenAddress = Schema.transformOrFail(
  Schema.String.annotations({ description: "an address `host:port`" }),
  Schema.Struct({ host: Schema.String, port: Schema.Number }),
  {
    strict: true,
    decode: (address, _, ast) => {
      const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address.trim())
      const port = Number(match?.[3])
      const host = match?.[1] ?? match?.[2]
      return host !== undefined && port >= 1 && port <= 65535
        ? ParseResult.succeed({ host, port })
        : ParseResult.fail(
            new ParseResult.Type(ast, address, `expected an address \`host:port\` like 127.0.0.1:8787, got ${JSON.stringify(address)}`)
          )
    },
    encode: ({ host, port }) => ParseResult.succeed(`${host.includes(":") ? `[${host}]` : host}:${port}`)
  }
)

/** A Board column: the Items that carry `label`. */
const BoardColumn = Schema.Struct({ name: NonEmptyString, label: NonEmptyString })
type BoardColumn = typeof BoardColumn.Type

/** The operator's web Board. */
export const BoardConfig = Schema.Struct({
  listen: Schema.optionalWith(ListenAddress, { default: () => ({ host: "127.0.0.1", port: 8787 }) }),
  /** The public name the Board is reached at; an `https://` URL marks its cookies `Secure`. Absent: the listen address. */
  hostName: Schema.optional(HostName).pipe(Schema.fromKey("host_name")),
  /** `github`: people sign in with GitHub, and each may do what their role on a Run's repository allows (ADR 0096). */
  auth: Schema.optional(BoardAuthConfig),
  /**
   * With `auth`, only these GitHub logins and the members of these teams (`org/team`) may sign in; empty: anyone with
   * read access to a configured repository.
   */
  allow: Schema.optionalWith(Schema.Array(AllowEntry), { default: () => [] }),
  /** Required to act on the Board when set, at least 32 characters; empty means none. With `auth`: for scripts. */
  token: Schema.optionalWith(BoardToken, { default: () => Option.none() }),
  /** A login session ends after this long without a request. */
  sessionIdle: Schema.optionalWith(Interval, { default: () => Duration.hours(12) }).pipe(Schema.fromKey("session_idle")),
  /** A login session ends this long after the login, however busy. */
  sessionLifetime: Schema.optionalWith(Interval, { default: () => Duration.days(7) }).pipe(Schema.fromKey("session_lifetime")),
  /** A reverse proxy in front: believe its `X-Forwarded-Proto` and `X-Forwarded-For`. Never set it without one. */
  trustProxy: Schema.optionalWith(Schema.Boolean, { default: () => false }).pipe(Schema.fromKey("trust_proxy")),
  columns: Schema.optionalWith(Schema.Array(BoardColumn), { default: () => [] }),
  /**
   * The GitHub login of whoever acts on this Board (it has one token, not one account per person): the Runs it
   * approves name them, so `pull_request.reviewers: [approver]` asks them. Absent: an approval names nobody.
   */
  operator: Schema.optional(GitHubLogin)
})
export type BoardConfig = typeof BoardConfig.Type
