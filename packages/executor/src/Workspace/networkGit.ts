import { Effect } from "effect"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import type { WorkerTransportShape } from "../WorkerTransport"
import { gitAskPass } from "./gitAskPass"
import { runGit, schemeOf } from "./runGit"

/** What a daemon git command needs to reach GitHub: where it runs, the repository's URL and the token to lend. */
export interface GitHubAccess {
  readonly transport: WorkerTransportShape
  /** The Worker root: a lent token lives under it for one command. */
  readonly root: string
  /** The repository on GitHub, without credentials. */
  readonly cloneUrl: string
  readonly token: GitHubCredential | undefined
}

/**
 * A daemon git command that talks to GitHub (ADR 0053), in one daemon-owned repository: it names the GitHub URL
 * itself, may use that URL's scheme and no other transport, and is lent the token through an askpass program that
 * answers for that URL's origin only, for this one command. A local path (tests' repositories) lends nothing.
 */
export const networkGit = (options: GitHubAccess & { readonly gitDir: string; readonly timeoutMs: number }) =>
(args: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    const { transport, cloneUrl, timeoutMs } = options
    const scheme = schemeOf(cloneUrl)
    const run = (env: Readonly<Record<string, string>>) =>
      runGit(transport, [`--git-dir=${options.gitDir}`, ...args], { timeoutMs, env, ...(scheme === undefined ? {} : { allowScheme: scheme }) })
    return options.token === undefined || scheme === undefined
      ? run({})
      : Effect.scoped(Effect.flatMap(gitAskPass(transport, options.root, options.token, cloneUrl), run))
  })
