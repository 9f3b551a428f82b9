/** A `host:port` an agent's sandbox may reach, and how the sandbox reaches it (ADR 0054). */
export interface Endpoint {
  readonly host: string
  readonly port: number
}

/** One allowed endpoint as the sandbox sees it: a listener on `bind:port` inside, the real `target` outside. */
interface Bridge {
  /** The unix socket between the two `socat`s, relative to the session's bridge folder. */
  readonly socket: string
  readonly bind: string
  readonly port: number
  /** `host:port` the outer `socat` connects to. */
  readonly target: string
}

const hostPattern = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/
const ipv4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** `host:port`, or `undefined` for anything else (IPv6 literals included: the bridges speak IPv4 loopback). */
export const parseEndpoint = (text: string): Endpoint | undefined => {
  const colon = text.lastIndexOf(":")
  const host = text.slice(0, colon).toLowerCase()
  const port = Number(text.slice(colon + 1))
  if (colon <= 0 || !hostPattern.test(host) || !Number.isInteger(port) || port < 1 || port > 65535) return undefined
  return { host, port }
}

/** The endpoint of an http(s) URL: its host and its port, 80 or 443 when the URL names none. */
export const endpointOfUrl = (url: string): Endpoint | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined
  const port = parsed.port === "" ? (parsed.protocol === "https:" ? 443 : 80) : Number(parsed.port)
  return parseEndpoint(`${parsed.hostname}:${port}`)
}

const loopbackLiteral = (host: string): boolean => ipv4.exec(host)?.[1] === "127"

/**
 * The bridges for a list of endpoints and the `/etc/hosts` that goes with them. A loopback address listens as
 * itself; `localhost` is 127.0.0.1; every other name gets its own 127.0.0.N, so a client connects to the name it
 * was given (TLS and SNI end to end). Other IP literals cannot be listened on inside: they are `unsupported`.
 */
export const planBridges = (
  endpoints: ReadonlyArray<Endpoint>
): { readonly bridges: ReadonlyArray<Bridge>; readonly hosts: string; readonly unsupported: ReadonlyArray<string> } => {
  const unique = [...new Map(endpoints.map((e) => [`${e.host}:${e.port}`, e])).values()]
  const used = new Set(unique.filter((e) => loopbackLiteral(e.host)).map((e) => e.host))
  used.add("127.0.0.1")
  const named = new Map<string, string>([["localhost", "127.0.0.1"]])
  let next = 2
  const addressOf = (host: string): string => {
    const known = named.get(host)
    if (known !== undefined) return known
    while (used.has(`127.0.0.${next}`)) next++
    const address = `127.0.0.${next++}`
    named.set(host, address)
    return address
  }
  const bridges: Array<Bridge> = []
  const unsupported: Array<string> = []
  for (const endpoint of unique) {
    const target = `${endpoint.host}:${endpoint.port}`
    if (ipv4.test(endpoint.host) && !loopbackLiteral(endpoint.host)) {
      unsupported.push(target)
      continue
    }
    const bind = loopbackLiteral(endpoint.host) ? endpoint.host : addressOf(endpoint.host)
    bridges.push({ socket: `${bridges.length}.sock`, bind, port: endpoint.port, target })
  }
  const hosts = [...named].map(([host, address]) => `${address} ${host}`).join("\n")
  return { bridges, hosts: `${hosts}\n`, unsupported }
}
