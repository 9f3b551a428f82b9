import type { UsineConfig } from "@usine/core/config/UsineConfig"

/**
 * `derive(the configuration in force)`, as a function called at the moment of use: derived again only when the
 * configuration changed (a reload), else the last derivation, so a caller that asks on every action pays nothing.
 * Ports of other packages take it as their `current()` (ADR 0029): plain data, read whole, never kept across actions.
 */
export const derivedSnapshot = <A>(current: () => UsineConfig, derive: (config: UsineConfig) => A): (() => A) => {
  let seen = current()
  let value = derive(seen)
  return () => {
    const config = current()
    if (config !== seen) {
      seen = config
      value = derive(config)
    }
    return value
  }
}
