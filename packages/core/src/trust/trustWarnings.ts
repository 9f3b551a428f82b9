import type { CompiledLoop } from "../config/CompiledLoop"

/**
 * What the daemon prints at startup about trust: one line per issue or pull request Loop that trusts anyone, since
 * any GitHub user who can open or label an Item there can then start an agent.
 */
export const trustWarnings = (config: { readonly loops: ReadonlyArray<CompiledLoop> }): ReadonlyArray<string> =>
  config.loops.flatMap((loop) =>
    loop.on !== "schedule" && loop.trust.mode === "anyone"
      ? [
          `loop ${loop.name}: trust: anyone lets any GitHub user who can open, comment on or label an Item in ${loop.repositories.join(", ") || "its repositories"} start an agent; remove it to act only for collaborators with write access and trusted_authors`
        ]
      : []
  )
