import { isLoopback } from "@usine/core/config/isLoopback"
import type { BoardSettingsData } from "../BoardSettings"

const hostPort = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/**
 * The `Host` values the Board answers: the listen address with its port, the loopback names when bound to loopback,
 * and the configured public names (with the port, and as written). Anything else is a DNS-rebinding attempt.
 */
export const allowedHosts = (settings: Pick<BoardSettingsData, "listen" | "hostNames">, port: number): ReadonlySet<string> => {
  const hosts = new Set([hostPort(settings.listen.host, port)])
  if (isLoopback(settings.listen.host)) {
    for (const name of ["localhost", "127.0.0.1", "::1"]) hosts.add(hostPort(name, port))
  }
  for (const name of settings.hostNames) {
    hosts.add(name)
    if (!/:\d+$/.test(name)) hosts.add(hostPort(name, port))
  }
  return new Set([...hosts].map((h) => h.toLowerCase()))
}
