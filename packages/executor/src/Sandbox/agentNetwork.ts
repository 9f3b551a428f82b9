import { type Endpoint, endpointOfUrl, parseEndpoint } from "./endpoints"

/** Where each CLI talks to its model when nothing points it elsewhere. */
const DEFAULT_HOSTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  codex: ["api.openai.com:443", "chatgpt.com:443"],
  claude: ["api.anthropic.com:443"],
  pi: [],
  command: []
}

/** Variables through which a CLI's SDK is pointed at another model endpoint. */
const BASE_URL_VARIABLES: Readonly<Record<string, string>> = {
  OPENAI_BASE_URL: "codex",
  ANTHROPIC_BASE_URL: "claude"
}

/**
 * The endpoints an agent's sandbox reaches: its model endpoint (the Agent's `provider`, a base-URL variable its
 * environment sets, or else the CLI's own default host), then the hosts its Agent and its Loop name.
 */
export const agentEndpoints = (input: {
  readonly harness: string
  readonly env: Readonly<Record<string, string>>
  readonly providerBaseUrl: string | undefined
  readonly named: ReadonlyArray<string>
}): ReadonlyArray<Endpoint> => {
  const model: Array<Endpoint | undefined> = []
  const redirected = new Set<string>()
  if (input.providerBaseUrl !== undefined) {
    model.push(endpointOfUrl(input.providerBaseUrl))
    redirected.add(input.harness)
  }
  for (const [variable, harness] of Object.entries(BASE_URL_VARIABLES)) {
    const value = input.env[variable]
    if (value === undefined || value === "") continue
    model.push(endpointOfUrl(value))
    redirected.add(harness)
  }
  const defaults = redirected.has(input.harness) ? [] : DEFAULT_HOSTS[input.harness] ?? []
  return [...model, ...[...defaults, ...input.named].map(parseEndpoint)].filter((e): e is Endpoint => e !== undefined)
}
