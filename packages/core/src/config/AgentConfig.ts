import { Either, ParseResult, Schema } from "effect"
import { EnvName, NetworkEndpoint, NonEmptyString } from "./ConfigScalars"

const Harness = Schema.Literal("codex", "claude", "pi", "command")
type Harness = typeof Harness.Type

/** Splits a command line on spaces, honouring single and double quotes; no other shell syntax. */
export const splitCommandLine = (line: string): Either.Either<ReadonlyArray<string>, string> => {
  const words: Array<string> = []
  let end = 0
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|([^\s"']+)/g)) {
    const gap = line.slice(end, match.index)
    if (gap.trim() !== "") return Either.left("unbalanced quotes in the command line")
    const piece = match[1] ?? match[2] ?? match[3] ?? ""
    if (gap === "" && end > 0) words[words.length - 1] += piece
    else words.push(piece)
    end = match.index + match[0].length
  }
  if (line.slice(end).trim() !== "") return Either.left("unbalanced quotes in the command line")
  return words.length === 0 ? Either.left("the command line is empty") : Either.right(words)
}

const CommandLine = Schema.transformOrFail(
  Schema.Union(Schema.NonEmptyArray(Schema.String), Schema.String).annotations({
    description: "a command line as a string or a list of arguments"
  }),
  Schema.Array(Schema.String),
  {
    strict: true,
    decode: (command, _, ast) =>
      typeof command !== "string"
        ? ParseResult.succeed(command)
        : Either.match(splitCommandLine(command), {
            onLeft: (reason) => ParseResult.fail(new ParseResult.Type(ast, command, reason)),
            onRight: (words) => ParseResult.succeed(words)
          }),
    encode: (words) => ParseResult.succeed(words.join(" "))
  }
)

/** Environment an Agent's process receives: variables passed through from the daemon, and fixed values. */
interface AgentEnv {
  readonly inherit: ReadonlyArray<string>
  readonly values: Readonly<Record<string, string>>
}

const isNameList = (env: ReadonlyArray<string> | Readonly<Record<string, string>>): env is ReadonlyArray<string> =>
  Array.isArray(env)

const AgentEnvSchema = Schema.transform(
  Schema.Union(
    Schema.Array(EnvName).annotations({ description: "a list of variable names" }),
    Schema.Record({ key: EnvName, value: Schema.String }).annotations({ description: "a map of name to value" })
  ),
  Schema.Struct({ inherit: Schema.Array(Schema.String), values: Schema.Record({ key: Schema.String, value: Schema.String }) }),
  {
    strict: true,
    decode: (env): AgentEnv =>
      isNameList(env) ? { inherit: env, values: {} } : { inherit: [], values: env },
    encode: (env) => (env.inherit.length > 0 ? env.inherit : env.values)
  }
)

const HttpUrl = Schema.String.pipe(
  Schema.filter((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), {
    description: "an http(s) URL with its API version, like `http://127.0.0.1:8080/v1`"
  })
)

/**
 * A model endpoint a CLI uses instead of its own provider (a local model server, the scripted model of the tests
 * and the demo): OpenAI-compatible for Codex and Pi, Anthropic's Messages API for Claude Code. The key stays in
 * the daemon's environment under `api_key_env`; on a local Worker the Attempt's model proxy adds it and the CLI
 * holds a placeholder (ADR 0086), elsewhere the CLI is handed it in its environment, never in a file.
 */
const ModelProviderConfig = Schema.Struct({
  baseUrl: Schema.propertySignature(HttpUrl).pipe(Schema.fromKey("base_url")),
  apiKeyEnv: Schema.optional(EnvName).pipe(Schema.fromKey("api_key_env")),
  model: NonEmptyString
})
type ModelProviderConfig = typeof ModelProviderConfig.Type

/** The harnesses that can be pointed at a `provider`: Codex and Pi speak OpenAI's wire formats, Claude Code Anthropic's. */
export const PROVIDER_HARNESSES: ReadonlyArray<Harness> = ["codex", "pi", "claude"]

/** One coding-agent CLI usine can start, and what it is allowed to see. */
export const AgentConfig = Schema.Struct({
  harness: Harness,
  model: Schema.optional(NonEmptyString),
  /** The `command` harness's command line, or another binary for a known CLI. */
  command: Schema.optional(CommandLine),
  env: Schema.optionalWith(AgentEnvSchema, { default: () => ({ inherit: [], values: {} }) }),
  /** A model endpoint that replaces the CLI's own provider (`codex`, `pi` and `claude`). */
  provider: Schema.optional(ModelProviderConfig),
  /** Endpoints its sandbox may reach besides its model endpoint (ADR 0054). */
  network: Schema.optional(Schema.Array(NetworkEndpoint)),
  /** Host files (login files, `~/` is the Worker's home) its sandbox sees read-only, at the same path. */
  sandboxReadOnly: Schema.optional(Schema.Array(NonEmptyString)).pipe(
    Schema.fromKey("sandbox_read_only")
  )
}).pipe(
  Schema.filter((agent) =>
    agent.provider === undefined || PROVIDER_HARNESSES.includes(agent.harness)
      ? undefined
      : { path: ["provider"], message: `\`provider\` applies only to the ${PROVIDER_HARNESSES.slice(0, -1).join(", ")} and ${PROVIDER_HARNESSES.at(-1)} harnesses, not \`${agent.harness}\`` }
  )
)
export type AgentConfig = typeof AgentConfig.Type

/**
 * The endpoint an Agent's CLI is pointed at for one Attempt, its key read from the daemon's environment now (so a
 * rotated key is used from the next Attempt on); `undefined` when the Agent uses the CLI's own provider.
 */
export const modelProviderOf = (
  agent: AgentConfig,
  env: Readonly<Record<string, string | undefined>>
): { readonly baseUrl: string; readonly apiKey?: string; readonly model: string } | undefined => {
  const provider = agent.provider
  if (provider === undefined) return undefined
  const apiKey = provider.apiKeyEnv === undefined ? undefined : env[provider.apiKeyEnv]
  return { baseUrl: provider.baseUrl, model: provider.model, ...(apiKey === undefined || apiKey === "" ? {} : { apiKey }) }
}
