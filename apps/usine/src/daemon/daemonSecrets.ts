import { Option, Redacted } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import type { GitHubCredential } from "@usine/github/GitHubCredential"

/** Name parts that mark a credential: `OPENAI_API_KEY`, `GH_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `DB_PASSWORD`. */
const SECRET_PART = /^(?:[A-Z]*KEY|TOKEN|SECRETS?|PASSWORD|PASSWD|PASS|PASSPHRASE|CREDENTIALS?|AUTH|COOKIE)$/

/** Whether an environment variable's name says it holds a credential; `GIT_AUTHOR_NAME` or `PWD` do not. */
export const isSecretName = (name: string): boolean =>
  name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase().split(/[^A-Z0-9]+/).some((part) => SECRET_PART.test(part))

/**
 * Every value the daemon must never show, in one list for its logs, transcripts and the Board: the GitHub token (or
 * the GitHub App's private key: the installation tokens it mints are `ghs_…`, which the redactor's patterns hide), the Board's token and its OAuth App's client secret, the webhook secret, each notification endpoint's URL and secret, each Agent's provider key (`provider.api_key_env`, read from the daemon's environment), and
 * every credential-named variable an Agent's `env` grants from the daemon or sets in usine.yaml. Other granted
 * values (a proxy, a locale) stay readable; the redactor's patterns still catch key and URL-credential shapes.
 */
export const daemonSecrets = (options: {
  readonly config: UsineConfig
  readonly token: GitHubCredential
  /** `github.app`'s private key (PEM), when usine runs as a GitHub App. */
  readonly privateKey?: string | undefined
  /** `board.auth.github`'s client secret, inline or read from its file. */
  readonly signInSecret?: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
}): ReadonlyArray<string> => {
  const { config, env } = options
  const agentSecrets = Object.values(config.agents).flatMap((agent) => [
    ...(agent.provider?.apiKeyEnv === undefined ? [] : [env[agent.provider.apiKeyEnv]]),
    ...agent.env.inherit.filter(isSecretName).map((name) => env[name]),
    ...Object.entries(agent.env.values).flatMap(([name, value]) => (isSecretName(name) ? [value] : []))
  ])
  const all = [
    ...(Redacted.isRedacted(options.token) ? [Redacted.value(options.token)] : []),
    options.privateKey,
    options.signInSecret,
    ...Option.toArray(Option.map(config.board.token, Redacted.value)),
    ...Option.toArray(Option.map(config.github.webhookSecret, Redacted.value)),
    ...config.notify.flatMap((endpoint) => [Redacted.value(endpoint.url), ...Option.toArray(Option.map(endpoint.secret, Redacted.value))]),
    ...agentSecrets
  ]
  return [...new Set(all.filter((value): value is string => value !== undefined && value !== ""))]
}
