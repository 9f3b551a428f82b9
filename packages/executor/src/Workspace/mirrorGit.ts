import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import type { GitCommandFailed } from "./WorkspaceFailures"
import { type GitHubAccess, networkGit } from "./networkGit"
import { runGit } from "./runGit"

/**
 * The whole config of a mirror: written anew before every use, so nothing another process added there survives.
 * Every fetch keeps its pack (never loose objects), held by a `.keep` until its refs are written, so a repack that
 * runs meanwhile can neither drop nor miss what it brings.
 */
const MIRROR_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n[fetch]\n\tunpackLimit = 1\n"

/** Packs past this many (one per fetch) are rolled into one again, with its bitmap. */
const MAX_PACKS = 16

/** Files that would make git run or read something the daemon did not write; none belongs in a mirror. */
const PLANTABLE = ["hooks", "info/attributes", "objects/info/alternates", "objects/info/http-alternates", "commondir", "config.worktree"]

/**
 * Git in one repository's mirror (`mirrors/<owner>__<name>.git`), which only the daemon writes (ADR 0053). Every
 * network command names the GitHub URL itself: the mirror has no remote, no `insteadOf`, no proxy to repoint.
 */
export const mirrorGit = (options: GitHubAccess & { readonly mirror: string; readonly timeoutMs?: number }) => {
  const { transport, mirror, cloneUrl } = options
  const timeoutMs = options.timeoutMs ?? 600_000
  const git = (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>, stdin?: string) =>
    runGit(transport, [`--git-dir=${mirror}`, ...args], { timeoutMs, ...(env === undefined ? {} : { env }), ...(stdin === undefined ? {} : { stdin }) })
  const network = networkGit({ transport, root: options.root, gitDir: mirror, cloneUrl, token: options.token, timeoutMs })

  /** Creates the mirror the first time; every time, rewrites its config and removes anything planted in it. */
  const ensure = Effect.fn("Mirror.ensure")(function* () {
    if (Option.isNone(yield* transport.readFile(path.join(mirror, "HEAD"), { maxBytes: 0 }))) {
      yield* transport.makeDirectory(mirror)
      yield* runGit(transport, ["init", "--quiet", "--bare", mirror], { timeoutMs })
    }
    for (const relative of PLANTABLE) yield* transport.remove(path.join(mirror, relative))
    yield* transport.writeFile(path.join(mirror, "config"), MIRROR_CONFIG)
  })

  /**
   * Brings every branch of GitHub's repository (pruning deleted ones) and, when it is not a branch, `ref`, and returns
   * what `alongside` returns. What a deleted or rewritten branch alone held leaves the mirror too (ADR 0083): a file
   * GitHub no longer has is gone from the Worker, whatever refs the daemon keeps (held and salvaged work) excepted.
   * The look for such a lost commit runs at the same time as `alongside` (both only read); a repack, when due, comes
   * after both.
   */
  const refresh = <A, E>(ref: string | undefined, alongside: Effect.Effect<A, E>) => Effect.gen(function* () {
    const before = (yield* refs("refs/")).map((entry) => entry.sha)
    yield* network(["fetch", "--quiet", "--prune", "--no-tags", "--no-write-fetch-head", cloneUrl, "+refs/heads/*:refs/heads/*"])
    if (ref !== undefined && ref.startsWith("refs/") && !ref.startsWith("refs/heads/")) {
      yield* network(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", cloneUrl, `+${ref}:${ref}`])
    }
    // A repack that fails leaves the mirror as it was: the clone's isolation does not rest on it (ADR 0083).
    const warn = (error: GitCommandFailed) => Effect.logWarning("repacking the mirror failed", { mirror, error: error.message })
    const [due, commit] = yield* Effect.all(
      [repackDue(before).pipe(Effect.catchTag("GitCommandFailed", (error) => Effect.as(warn(error), undefined))), alongside],
      { concurrency: 2 }
    )
    if (due !== undefined) yield* repack(due).pipe(Effect.catchTag("GitCommandFailed", warn))
    return commit
  }).pipe(Effect.withSpan("Mirror.fetch"))

  /**
   * Whether the mirror is to be repacked into one pack with a reachability bitmap (what makes an Attempt's start
   * repository cheap): when it has none yet, when fetches left many packs, or when a commit the refs reached before
   * is lost (`lost`). `undefined` when not.
   */
  const repackDue = Effect.fn("Mirror.repackDue")(function* (before: ReadonlyArray<string>) {
    const files = yield* transport.listDirectory(path.join(mirror, "objects", "pack"))
    const packs = files.filter((name) => name.endsWith(".pack")).length
    if (packs === 0) return undefined
    const lost = before.length > 0 &&
      (yield* git(["rev-list", "--max-count=1", "--stdin", "--not", "--all"], undefined, `${before.join("\n")}\n`)).trim() !== ""
    return !lost && packs <= MAX_PACKS && files.some((name) => name.endsWith(".bitmap")) ? undefined : { lost }
  })

  /**
   * `-a -d` leaves unreachable objects out, and the old packs go. Loose objects (from before fetches kept their packs)
   * that are unreachable and an hour old go too when a commit was lost; younger files may be a fetch's temporary ones.
   */
  const repack = Effect.fn("Mirror.repack")(function* (due: { readonly lost: boolean }) {
    yield* git(["repack", "-a", "-d", "-b", "-q"])
    if (due.lost) yield* git(["prune", "--expire=1.hour.ago"])
  })

  /** Brings every branch of GitHub's repository, as `fetchCommit` does. */
  const fetch = () => refresh(undefined, Effect.void)

  /** Brings every branch and `ref`, and returns the commit `ref` names now. */
  const fetchCommit = (ref: string) => refresh(ref, revParse(ref))

  const revParse = (rev: string) => git(["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]).pipe(Effect.map((s) => s.trim()))

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

  /** Branches (fetched from GitHub) under a prefix, with their shas. */
  const branches = (prefix: string) =>
    refs(`refs/heads/${prefix}`).pipe(
      Effect.map((found) => found.map(({ ref, sha }) => ({ branch: ref.slice("refs/heads/".length), sha })))
    )

  /** Copies `ref` of another daemon-owned repository (with the objects it needs) to `target` here. */
  const takeRef = (from: string, ref: string, target: string) =>
    git(["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", from, `+${ref}:${target}`]).pipe(Effect.asVoid)

  /**
   * Which of `ids` the mirror holds. The mirror has no alternates, so its answer is its own objects, which only
   * the daemon fetched from GitHub.
   */
  const holds = (ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.succeed(new Set<string>())
      : runGit(transport, [`--git-dir=${mirror}`, "cat-file", "--batch-check=%(objectname)"], { timeoutMs, stdin: `${ids.join("\n")}\n` }).pipe(
        Effect.map((out) => new Set(out.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line))))
      )

  const deleteRef = (ref: string) => git(["update-ref", "-d", ref]).pipe(Effect.asVoid)

  return { mirror, git, ensure, fetch, fetchCommit, revParse, isAncestor, refs, branches, takeRef, holds, deleteRef }
}

export type MirrorGit = ReturnType<typeof mirrorGit>
