import { Data, Effect, Option } from "effect"
import * as path from "node:path/posix"
import { GitCommandFailed } from "../Workspace/WorkspaceFailures"
import { type MirrorGit, mirrorGit } from "../Workspace/mirrorGit"
import { type GitHubAccess, networkGit } from "../Workspace/networkGit"
import { runGit } from "../Workspace/runGit"
import { runGitScript } from "../Workspace/runGitScript"
import { harvestRepoScript } from "./harvestRepoScript"
import { workSinceScript } from "./workSinceScript"
import { changeScript } from "./changeScript"
import { EXEC_OUTPUT_BYTES } from "../WorkerTransport"
import { AGENT_IDENTITY, type CommitIdentity } from "./CommitIdentity"
import { parseNumstat } from "./parseNumstat"
import { parseRawChanges } from "./parseRawChanges"


/** The agent's git data is not what usine made: it is not read, and nothing of it is pushed. */
class AgentWorkUnreadable extends Data.TaggedError("AgentWorkUnreadable")<{
  readonly reason: string
}> {
  override get message() {
    return this.reason
  }
}

/** `harvest/<attempt folder>.git` under the Worker root: outside every folder an agent can see. */
export const harvestRepoOf = (root: string, attemptDir: string): string => path.join(root, "harvest", `${path.basename(attemptDir)}.git`)

/** The ref of the harvest repository that takes a commit brought back from the mirror. */
const KEPT = "refs/usine/kept"

const SHA = /^[0-9a-f]{40}$/

/**
 * Git for one Attempt as the daemon, never in the agent's repository (ADR 0053). `collect` reads the agent's
 * commits and files as data into the Attempt's harvest repository, a bare repository only the daemon writes
 * (its objects borrow the Attempt's `start.git` only, ADR 0083: a tree the agent wrote that names an object of
 * another branch or Run finds nothing there, and cannot be pushed); every later command (guards' diff, push,
 * salvage) runs there, against the GitHub URL itself, with the token lent only to network commands and only for
 * that URL's origin.
 */
export const attemptGit = (options: GitHubAccess & {
  readonly mirror: string
  /** The Attempt's `start.git`; a workspace made before it existed borrows the mirror instead. */
  readonly start: string
  /** The agent's working tree, read as files. */
  readonly worktree: string
  readonly harvestRepo: string
  readonly timeoutMs?: number
  /** Who commits what the agent left uncommitted, and the commit usine pushes; `AGENT_IDENTITY` by default. */
  readonly identity?: CommitIdentity
}) => {
  const { transport, harvestRepo, cloneUrl } = options
  const author = options.identity ?? AGENT_IDENTITY
  const timeoutMs = options.timeoutMs ?? 600_000
  const mirror: MirrorGit = mirrorGit({
    transport,
    root: options.root,
    mirror: options.mirror,
    cloneUrl,
    token: options.token,
    timeoutMs
  })
  const git = (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>, maxOutputBytes?: number) =>
    runGit(transport, [`--git-dir=${harvestRepo}`, ...args], {
      timeoutMs,
      ...(env === undefined ? {} : { env }),
      ...(maxOutputBytes === undefined ? {} : { maxOutputBytes })
    })
  const network = networkGit({ transport, root: options.root, gitDir: harvestRepo, cloneUrl, token: options.token, timeoutMs })
  const identity = {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email
  }

  /** Usine's identity, authoring and committing at `at` (ms): the same inputs make the same commit. */
  const commitEnv = (at: number) => {
    const date = `@${Math.floor(at / 1000)} +0000`
    return { ...identity, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }
  }

  /** The repository whose objects the harvest repository borrows: the Attempt's start, or (an older workspace) the mirror. */
  const borrowed = transport
    .readFile(path.join(options.start, "HEAD"), { maxBytes: 0 })
    .pipe(Effect.map((head) => (Option.isSome(head) ? options.start : options.mirror)))

  /**
   * Brings the agent's work into a fresh harvest repository, in one process (`harvestRepoScript`): its HEAD commit
   * and objects, copied as files, then what it left uncommitted, staged with the daemon's own index from the
   * worktree's files (no filter, hook or attribute program can run: the config is the daemon's) and committed on
   * top. Returns the collected head and its tree.
   */
  const collect = Effect.fn("AttemptGit.collect")(function* (message: string) {
    const from = yield* borrowed
    yield* transport.remove(harvestRepo)
    // What the worktree holds decides whether staging succeeds (a `.git` of a sub-folder, a file git refuses): the
    // agent's doing, said as such, never a git failure to retry.
    const agents: Readonly<Record<string, string>> = {
      "read-tree": "reading the agent's HEAD tree",
      add: "staging the agent's files (`git add --all` in the daemon's index)"
    }
    const out = yield* runGitScript(
      transport,
      "collect",
      harvestRepoScript,
      [options.worktree, harvestRepo, from, path.join(from, "objects"), message],
      { timeoutMs, env: { GIT_INDEX_FILE: path.join(harvestRepo, "usine-index"), ...identity } }
    ).pipe(
      Effect.catchTag("GitCommandFailed", (error): Effect.Effect<never, GitCommandFailed | AgentWorkUnreadable> => {
        if (error.step === "read-work") {
          // The refusals of `collectScript` (exit 3) are one fixed sentence each, never what it read.
          const reason = error.exitCode === 3 ? error.stderr.trim().split("\n")[0] ?? "" : ""
          return Effect.fail(new AgentWorkUnreadable({ reason: reason === "" ? `reading the agent's git data failed (exit ${error.exitCode})` : reason }))
        }
        if (error.step === "head") return Effect.fail(new AgentWorkUnreadable({ reason: "the worktree's HEAD names a commit whose objects are missing" }))
        const what = error.step === undefined ? undefined : agents[error.step]
        return what === undefined ? Effect.fail(error) : Effect.fail(new AgentWorkUnreadable({ reason: `${what} failed: ${gitSays(error.stderr)}` }))
      })
    )
    const [head = "", tree = ""] = out.trim().split(" ")
    if (!SHA.test(head) || !SHA.test(tree)) {
      return yield* new GitCommandFailed({ command: "git script collect", exitCode: 0, stderr: `unexpected output ${JSON.stringify(out.slice(0, 200))}` })
    }
    return { head, tree }
  })

  /**
   * What the collected `head` (of tree `tree`) holds since `baseSha`, in one process (issue 31): the merge-base and
   * the commits since it, oldest first. With `build`, the commit that leaves the machine: the agent's final tree on
   * `build.parent` (the merge-base when absent), by usine's identity, with usine's message, authored and committed
   * at `build.at` (ms), so the same inputs make the same sha and a harvest run again after a restart builds the
   * commit it recorded before; nothing of the agent's own commits (message, author, dates, parents) is in it.
   * `undefined` when the tree is the parent's. With `build.subjects`, the `<short sha> <subject>` lines of the
   * agent's commits since that parent, read from a file of the harvest repository: none when git could not list
   * them or they are larger than usine reads.
   */
  const workSince = Effect.fn("AttemptGit.workSince")(function* (input: {
    readonly head: string
    readonly tree: string
    readonly baseSha: string
    readonly build?: { readonly parent?: string | undefined; readonly message: string; readonly at: number; readonly subjects: boolean }
  }) {
    const { build } = input
    const subjectsFile = path.join(harvestRepo, "usine-subjects")
    const wantSubjects = build?.subjects === true
    const out = yield* runGitScript(
      transport,
      "work-since",
      workSinceScript,
      [input.baseSha, input.head, input.tree, build?.parent ?? "", build?.message ?? "", wantSubjects ? subjectsFile : ""],
      { timeoutMs, env: { GIT_DIR: harvestRepo, ...(build === undefined ? {} : commitEnv(build.at)) } }
    )
    const lines = out.split("\n").filter((line) => line !== "")
    const base = lines[0]?.startsWith("base ") === true ? lines[0].slice("base ".length) : ""
    const commits = lines.slice(1).filter((line) => SHA.test(line))
    const builtLine = lines.find((line) => line.startsWith("built "))?.slice("built ".length)
    const malformed = !SHA.test(base) || lines.length !== 1 + commits.length + (build === undefined ? 0 : 1) ||
      (build !== undefined && (builtLine === undefined || (builtLine !== "-" && !SHA.test(builtLine))))
    if (malformed) {
      return yield* new GitCommandFailed({ command: "git script work-since", exitCode: 0, stderr: `unexpected output ${JSON.stringify(out.slice(0, 200))}` })
    }
    const built = builtLine === undefined || builtLine === "-" ? undefined : builtLine
    if (!wantSubjects || built === undefined) return { base, commits, built, subjects: undefined }
    const listed = yield* transport.readFile(subjectsFile, { maxBytes: EXEC_OUTPUT_BYTES + 1 })
    const text = Option.isSome(listed) && listed.value.length <= EXEC_OUTPUT_BYTES ? Buffer.from(listed.value).toString("utf8") : ""
    return { base, commits, built, subjects: text }
  })

  /**
   * The diff the guards read: every changed file as text, binary ones too (`--text`), in git's default shape. The
   * harvest repository is bare and has no attributes, so no `-diff`, `binary` or driver can hide a file. A diff over
   * `maxBytes` is never read whole: `GitCommandFailed` with `outputDropped`.
   */
  const diff = (base: string, head: string, maxBytes?: number) =>
    git(["diff", "-M", "--text", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", base, head], undefined, maxBytes)

  /**
   * What the guards read of the change from `base` to `head`, in one process (issue 31): the diff as `diff` gives it
   * (over `maxBytes`: `GitCommandFailed` with `outputDropped`), each changed entry as `rawChanges` gives it (over
   * `EXEC_OUTPUT_BYTES`: the same), and with `counted`, the lines added and removed per file as `numstat` gives them,
   * `undefined` when git could not count them.
   */
  const readChange = Effect.fn("AttemptGit.readChange")(function* (base: string, head: string, options: { readonly maxBytes?: number | undefined; readonly counted: boolean }) {
    const rawFile = path.join(harvestRepo, "usine-raw")
    const numstatFile = path.join(harvestRepo, "usine-numstat")
    const diff = yield* runGitScript(
      transport,
      "change",
      changeScript,
      [base, head, rawFile, options.counted ? numstatFile : "", String(EXEC_OUTPUT_BYTES)],
      { timeoutMs, env: { GIT_DIR: harvestRepo }, ...(options.maxBytes === undefined ? {} : { maxOutputBytes: options.maxBytes }) }
    ).pipe(
      Effect.catchTag("GitCommandFailed", (error) => {
        if (error.step !== "raw-size") return Effect.fail(error)
        const bytes = Number(/usine-raw-bytes (\d+)/.exec(error.stderr)?.[1] ?? EXEC_OUTPUT_BYTES + 1)
        return Effect.fail(new GitCommandFailed({ ...error, stderr: `its list of changed files is larger than usine reads`, outputDropped: bytes - EXEC_OUTPUT_BYTES }))
      })
    )
    // Past the cap is no answer, as a cut output is none for `runGit`; the script refused a list of entries that long.
    const text = (file: string) =>
      transport.readFile(file, { maxBytes: EXEC_OUTPUT_BYTES + 1 }).pipe(
        Effect.map(Option.filterMap((bytes) => bytes.length > EXEC_OUTPUT_BYTES ? Option.none() : Option.some(Buffer.from(bytes).toString("utf8"))))
      )
    const raw = yield* text(rawFile)
    if (Option.isNone(raw)) return yield* new GitCommandFailed({ command: "git diff --raw", exitCode: 0, stderr: "its output is missing" })
    const counts = options.counted ? yield* text(numstatFile) : Option.none()
    return { diff, changes: parseRawChanges(raw.value), counts: Option.getOrUndefined(Option.map(counts, parseNumstat)) }
  })

  /** A blob's bytes (a link's target), at most `maxBytes`. */
  const blob = (sha: string) => git(["cat-file", "blob", sha])

  /**
   * Keeps commit `sha` of the harvest repository in the mirror under `ref`, where a later harvest of the Attempt
   * finds it: one fetch of that commit by its id (a sha the daemon built), no ref of the harvest repository needed.
   */
  const keepCommit = (sha: string, ref: string) =>
    mirror.git(["-c", "uploadpack.allowAnySHA1InWant=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", harvestRepo, `+${sha}:${ref}`]).pipe(Effect.asVoid)

  /** Whether the harvest repository, or the start it borrows from, holds the commit `sha`. */
  const hasCommit = (sha: string) =>
    git(["cat-file", "-e", `${sha}^{commit}`]).pipe(
      Effect.as(true),
      Effect.catchTag("GitCommandFailed", () => Effect.succeed(false))
    )

  /**
   * Brings the commit `sha` the daemon kept or pushed from the mirror into the harvest repository, by `ref` or, once
   * that ref is gone, by its id (the ledger's, never the agent's); whether it then holds it. Only that commit's
   * history comes: nothing else of the mirror is borrowed.
   */
  const takeFromMirror = (ref: string, sha: string) => {
    const take = (want: string) =>
      git(["-c", "uploadpack.allowAnySHA1InWant=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", options.mirror, `+${want}:${KEPT}`]).pipe(
        Effect.zipRight(hasCommit(sha)),
        Effect.catchTag("GitCommandFailed", () => Effect.succeed(false))
      )
    return Effect.flatMap(take(ref), (here) => (here ? Effect.succeed(true) : take(sha)))
  }

  /** The sha of a branch on GitHub now, if it exists. */
  const remoteSha = (branch: string) =>
    network(["ls-remote", "--heads", cloneUrl, `refs/heads/${branch}`]).pipe(
      Effect.map((out) => Option.fromNullable(out.split("\n").find((line) => line.endsWith(`\trefs/heads/${branch}`))?.split("\t")[0]))
    )

  /**
   * Pushes `sha` to a branch on GitHub. `lease`: `undefined` for a plain fast-forward push, `null` to require that
   * the branch does not exist, a sha to overwrite it only while it still points there; `force` overwrites.
   */
  const push = (sha: string, branch: string, mode: { readonly lease?: string | null; readonly force?: boolean }) => {
    const ref = `refs/heads/${branch}`
    const flags = mode.force === true ? ["--force"] : mode.lease === undefined ? [] : [`--force-with-lease=${ref}:${mode.lease ?? ""}`]
    return network(["push", "--quiet", "--no-verify", ...flags, cloneUrl, `${sha}:${ref}`]).pipe(Effect.asVoid)
  }

  return { mirror, collect, workSince, readChange, identity: author, diff, blob, keepCommit, hasCommit, takeFromMirror, remoteSha, push }
}

export type AttemptGit = ReturnType<typeof attemptGit>

/** The first line git wrote on stderr that says what went wrong, bounded. */
const gitSays = (stderr: string): string =>
  (stderr.split("\n").find((line) => /^(?:error|fatal):/.test(line)) ?? stderr.split("\n")[0] ?? "").trim().slice(0, 300)

/**
 * A git failure a retry could fix (the network, GitHub answering 5xx) rather than one the operator must look at.
 * A status is a whole number: the remote's port in `failed to push some refs to 'http://host:45031/…'` is not one.
 */
export const isTransient = (error: GitCommandFailed): boolean =>
  /unable to access|could not resolve|connection|timed out|early EOF|remote end hung up|\b50[234]\b|RPC failed/i.test(error.stderr)
