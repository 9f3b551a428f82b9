import { execFile, spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { AGENT_ARGV } from "./benchWorld"

const run = promisify(execFile)

/** The flags the executor gives every git command (runGit) and every command in a worktree (worktreeGit). */
const fixedArgs = ["-c", "credential.helper=", "-c", "core.hooksPath=/dev/null"]
const daemonSafe = ["-c", "core.fsmonitor=false", "-c", "commit.gpgsign=false", "-c", "diff.external=", "-c", "core.pager=cat"]
const identity = { GIT_AUTHOR_NAME: "usine-agent", GIT_AUTHOR_EMAIL: "a@usine.invalid", GIT_COMMITTER_NAME: "usine-agent", GIT_COMMITTER_EMAIL: "a@usine.invalid" }

export interface BareTimes {
  /** Lent token, fetch into the mirror, resolve the base, worktree add, the push branch's local ref. */
  readonly prepareMs: number
  /** The agent process, from spawn to exit. */
  readonly agentMs: number
  /** add, commit, rev-parse, merge-base, rev-list, diff, diff --numstat, ls-remote, push, log. */
  readonly harvestMs: number
  /** `POST /repos/{owner}/{repo}/pulls`. */
  readonly pullRequestMs: number
  /** worktree remove, the folder, worktree prune. */
  readonly cleanupMs: number
  readonly totalMs: number
}

const agent = (cwd: string, prompt: string, promptFile: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(AGENT_ARGV[0]!, AGENT_ARGV.slice(1), {
      cwd,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", USINE_PROMPT_FILE: promptFile },
      stdio: ["pipe", "pipe", "pipe"]
    })
    child.stdout.resume()
    child.stderr.resume()
    // The agent may exit without reading its prompt, as the no-op one does.
    child.stdin.on("error", () => {})
    child.stdin.end(prompt)
    child.once("error", reject)
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the agent exited with ${code}`))))
  })

/**
 * The git and agent work of one Run with no daemon around it: the same git commands, in the same order, that the
 * executor runs (Workspace.acquire, prepareAttempt's begin, Harvest, Workspace.remove), the same agent process,
 * and the one REST call that opens the pull request. What the daemon adds beyond this is its overhead.
 */
export const makeBareRunner = (options: {
  readonly root: string
  readonly cloneUrl: string
  readonly apiUrl: string
  readonly repository: string
  readonly token: string
  readonly baseBranch: string
}) => {
  const mirror = join(options.root, "mirrors", options.repository.replace("/", "__") + ".git")
  const git = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
    run("git", [...fixedArgs, ...args], { env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...env }, maxBuffer: 64 * 1024 * 1024 })
      .then((r) => r.stdout)
  const inTree = (worktree: string, args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) =>
    git(["-C", worktree, ...daemonSafe, ...args], env)
  const askPass = (name: string) => {
    const dir = join(options.root, "credentials", name)
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, "token"), `${options.token}\n`, { mode: 0o600 })
    writeFileSync(join(dir, "askpass"), `#!/bin/sh\ncase "$1" in\n  Username*) printf '%s\\n' x-access-token ;;\n  *) cat "$(dirname "$0")/token" ;;\nesac\n`)
    chmodSync(join(dir, "askpass"), 0o700)
    return { env: { GIT_ASKPASS: join(dir, "askpass") }, done: () => rmSync(dir, { recursive: true, force: true }) }
  }
  // One fetch into a mirror at a time, as the executor's per-mirror semaphore allows.
  let mirrorLock: Promise<unknown> = Promise.resolve()
  const locked = <A>(work: () => Promise<A>): Promise<A> => {
    const next = mirrorLock.then(work, work)
    mirrorLock = next.catch(() => undefined)
    return next
  }

  return async (item: number): Promise<BareTimes> => {
    const t0 = performance.now()
    const attemptDir = join(options.root, "attempts", `bare-${item}`)
    const worktree = join(attemptDir, "worktree")
    const branch = `usine/bare/${item}`
    mkdirSync(attemptDir, { recursive: true })
    const base = await locked(async () => {
      const lent = askPass(`prepare-${item}`)
      if (!existsSync(join(mirror, "HEAD"))) {
        mkdirSync(mirror, { recursive: true })
        await git(["init", "--quiet", "--bare", mirror])
        await git(["-C", mirror, "config", "remote.origin.fetch", "+refs/heads/*:refs/heads/*"])
      }
      await git(["-C", mirror, "config", "remote.origin.url", options.cloneUrl])
      await git(["-C", mirror, "fetch", "--quiet", "--prune", "--no-tags", "origin"], lent.env)
      const sha = (await git(["-C", mirror, "rev-parse", "--verify", "--quiet", `refs/heads/${options.baseBranch}^{commit}`])).trim()
      lent.done()
      await git(["-C", mirror, "worktree", "add", "--quiet", "--detach", worktree, sha])
      return sha
    })
    await inTree(worktree, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`]).catch(() => "")
    const t1 = performance.now()
    const promptFile = join(attemptDir, "prompt.md")
    const prompt = `Work on #${item} of ${options.repository}: Bench item ${item}`
    writeFileSync(promptFile, prompt)
    await agent(worktree, prompt, promptFile)
    const t2 = performance.now()
    await inTree(worktree, ["add", "--all"])
    await inTree(worktree, ["diff", "--cached", "--name-only", "--no-renames"])
    await inTree(worktree, ["-c", "user.name=usine-agent", "-c", "user.email=a@usine.invalid", "commit", "--quiet", "--no-verify", "-m", `bench: work on #${item}`], identity)
    const head = (await inTree(worktree, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])).trim()
    const mergeBase = (await inTree(worktree, ["merge-base", base, head])).trim()
    await inTree(worktree, ["rev-list", "--reverse", `${mergeBase}..${head}`])
    await inTree(worktree, ["diff", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", mergeBase, head])
    await inTree(worktree, ["diff", "--numstat", "-z", "-M", "--no-color", "--no-ext-diff", "--no-textconv", mergeBase, head])
    const lent = askPass(`harvest-${item}`)
    await inTree(worktree, ["ls-remote", "--heads", "origin", `refs/heads/${branch}`], lent.env)
    await inTree(worktree, ["push", "--quiet", "--no-verify", `--force-with-lease=refs/heads/${branch}:`, "origin", `HEAD:refs/heads/${branch}`], lent.env)
    lent.done()
    await inTree(worktree, ["log", "--reverse", "--format=%h %s", `${mergeBase}..${head}`])
    const t3 = performance.now()
    const [owner, repo] = options.repository.split("/")
    const response = await fetch(`${options.apiUrl}/repos/${owner}/${repo}/pulls`, {
      method: "POST",
      headers: { authorization: `token ${options.token}`, "content-type": "application/json", accept: "application/vnd.github+json" },
      body: JSON.stringify({ head: branch, base: options.baseBranch, title: `Bench item ${item}`, body: `Bare run of item ${item}.` })
    })
    if (response.status !== 201) throw new Error(`POST pulls answered ${response.status}: ${await response.text()}`)
    const t4 = performance.now()
    await git(["-C", mirror, "worktree", "remove", "--force", worktree]).catch(() => "")
    rmSync(attemptDir, { recursive: true, force: true })
    await git(["-C", mirror, "worktree", "prune"]).catch(() => "")
    const t5 = performance.now()
    return { prepareMs: t1 - t0, agentMs: t2 - t1, harvestMs: t3 - t2, pullRequestMs: t4 - t3, cleanupMs: t5 - t4, totalMs: t5 - t0 }
  }
}

/** `items` bare Runs, `slots` at a time; the wall time of the whole batch and each Run's times. */
export const bareBatch = async (runner: ReturnType<typeof makeBareRunner>, items: number, slots: number) => {
  const started = performance.now()
  const times: Array<BareTimes> = []
  let next = 1
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (next <= items) times.push(await runner(next++))
    })
  )
  return { wallMs: performance.now() - started, times }
}
