import type { UsineConfig } from "@usine/core/config/UsineConfig"

/**
 * An object whose every property is read from `derive(the configuration in force)` at each access, derived again only
 * when the configuration changed. Ports of other packages take plain data and read it on every use; handed a live
 * view, they follow a reload without knowing of it (ADR 0029).
 */
export const liveView = <A extends object>(current: () => UsineConfig, derive: (config: UsineConfig) => A): A => {
  let seen = current()
  let value = derive(seen)
  const now = (): A => {
    const config = current()
    if (config !== seen) {
      seen = config
      value = derive(config)
    }
    return value
  }
  const view = {} as A
  for (const key of Object.keys(value) as Array<keyof A>) {
    Object.defineProperty(view, key, { enumerable: true, get: () => now()[key] })
  }
  return view
}
