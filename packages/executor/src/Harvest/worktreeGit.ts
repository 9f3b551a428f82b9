import { Effect, Option, type Redacted } from "effect"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { GitCommandFailed } from "../Workspace/errors"
import { gitAskPass } from "../Workspace/gitAskPass"
import { runGit } from "../Workspace/runGit"
import { parseNumstat } from "./parseNumstat"

/** Who commits what the agent left uncommitted. */
export const AGENT_IDENTITY = { name: "usine-agent", email: "usine-agent@users.noreply.usine.invalid" }

/**
 * The worktree is the agent's: its config could name programs git would run for the daemon (an fsmonitor, a
 * signing program, a diff driver). These settings turn them off for every command the daemon runs in it.
 */
const daemonSafe = ["-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false", "-c", "diff.external=", "-c", "core.pager=cat"]

export type GitError = TransportError | GitCommandFailed

/** Git in one Attempt's worktree, as the daemon (never as the agent), with the token lent only to network commands. */
export const worktreeGit = (options: {
  readonly transport: WorkerTransportShape
  readonly worktree: string
  /** The Worker root: lent tokens live under it for one command. */
  readonly root: string
  readonly token: Redacted.Redacted<string> | undefined
  readonly timeoutMs?: number
}) => {
  const { transport, worktree } = options
  const timeoutMs = options.timeoutMs ?? 600_000
  const git = (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) =>
    runGit(transport, ["-C", worktree, ...daemonSafe, ...args], { timeoutMs, ...(env === undefined ? {} : { env }) })
  const withToken = <A>(use: (env: Readonly<Record<string, string>>) => Effect.Effect<A, GitError>) =>
    options.token === undefined
      ? use({})
      : Effect.scoped(Effect.flatMap(gitAskPass(transport, options.root, options.token), use))

  /** Commits everything the agent left in the worktree; `false` when there was nothing. */
  const commitAll = Effect.fn("Worktree.commitAll")(function* (message: string) {
    yield* git(["add", "--all"])
    const staged = yield* git(["diff", "--cached", "--name-only", "--no-renames"])
    if (staged.trim() === "") return false
    yield* git(
      ["-c", `user.name=${AGENT_IDENTITY.name}`, "-c", `user.email=${AGENT_IDENTITY.email}`, "commit", "--quiet", "--no-verify", "-m", message],
      {
        GIT_AUTHOR_NAME: AGENT_IDENTITY.name,
        GIT_AUTHOR_EMAIL: AGENT_IDENTITY.email,
        GIT_COMMITTER_NAME: AGENT_IDENTITY.name,
        GIT_COMMITTER_EMAIL: AGENT_IDENTITY.email
      }
    )
    return true
  })

  const revParse = (rev: string) => git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]).pipe(Effect.map((s) => s.trim()))

  /** The newest commit both `a` and `b` have: the diff base even when the base branch moved on since. */
  const mergeBase = (a: string, b: string) => git(["merge-base", a, b]).pipe(Effect.map((s) => s.trim()))

  /** Commits of `head` not in `base`, oldest first. */
  const commitsSince = (base: string, head: string) =>
    git(["rev-list", "--reverse", `${base}..${head}`]).pipe(Effect.map((out) => out.split("\n").filter((line) => line !== "")))

  /** The diff the guards read, in git's default shape whatever the host's git config says. */
  const diff = (base: string, head: string) =>
    git(["diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", base, head])

  /** Lines added and removed per file between two commits, renames found as the guards' diff finds them. */
  const numstat = (base: string, head: string) =>
    git(["diff", "--numstat", "-z", "-M", "--no-color", "--no-ext-diff", "--no-textconv", base, head]).pipe(Effect.map(parseNumstat))

  const isAncestor = (ancestor: string, descendant: string) =>
    git(["merge-base", "--is-ancestor", ancestor, descendant]).pipe(
      Effect.as(true),
      Effect.catchIf(
        (error): error is GitCommandFailed => error._tag === "GitCommandFailed" && error.exitCode === 1,
        () => Effect.succeed(false)
      )
    )

  /** The mirror's refs under a full prefix (`refs/...`), with their shas. */
  const refs = (prefix: string) =>
    git(["for-each-ref", "--format=%(refname) %(objectname)", prefix]).pipe(
      Effect.map((out) =>
        out
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => {
            const [ref = "", sha = ""] = line.split(" ")
            return { ref, sha }
          })
      )
    )

  /** Local branches (the mirror's, fetched from GitHub) under a prefix, with their shas. */
  const branches = (prefix: string) =>
    refs(`refs/heads/${prefix}`).pipe(
      Effect.map((found) => found.map(({ ref, sha }) => ({ branch: ref.slice("refs/heads/".length), sha })))
    )

  /** Points a ref of the mirror (shared by every worktree) at HEAD, or deletes it. */
  const setRef = (ref: string) => git(["update-ref", ref, "HEAD"]).pipe(Effect.asVoid)
  const deleteRef = (ref: string) => git(["update-ref", "-d", ref]).pipe(Effect.asVoid)

  /** The sha of a branch on GitHub now, if it exists. */
  const remoteSha = (branch: string) =>
    withToken((env) => git(["ls-remote", "--heads", "origin", `refs/heads/${branch}`], env)).pipe(
      Effect.map((out) => Option.fromNullable(out.split("\n").find((line) => line.endsWith(`\trefs/heads/${branch}`))?.split("\t")[0]))
    )

  /**
   * Pushes HEAD to a branch on GitHub. `lease`: `undefined` for a plain fast-forward push, `null` to require that
   * the branch does not exist, a sha to overwrite it only while it still points there; `force` overwrites.
   */
  const push = (branch: string, mode: { readonly lease?: string | null; readonly force?: boolean }) =>
    withToken((env) => {
      const ref = `refs/heads/${branch}`
      const flags = mode.force === true
        ? ["--force"]
        : mode.lease === undefined
        ? []
        : [`--force-with-lease=${ref}:${mode.lease ?? ""}`]
      return git(["push", "--quiet", "--no-verify", ...flags, "origin", `HEAD:${ref}`], env)
    }).pipe(Effect.asVoid)

  return { git, commitAll, revParse, mergeBase, commitsSince, diff, numstat, isAncestor, refs, branches, setRef, deleteRef, remoteSha, push }
}

export type WorktreeGit = ReturnType<typeof worktreeGit>

/**
 * A git failure a retry could fix (the network, GitHub answering 5xx) rather than one the operator must look at.
 * A status is a whole number: the remote's port in `failed to push some refs to 'http://host:45031/…'` is not one.
 */
export const isTransient = (error: GitCommandFailed): boolean =>
  /unable to access|could not resolve|connection|timed out|early EOF|remote end hung up|\b50[234]\b|RPC failed/i.test(error.stderr)
