import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import type { RunView } from "@usine/board/BoardViews/runView"
import { queryLedger } from "../../resilience/support/LedgerSnapshot"
import { REPOSITORY } from "../../support/daemonConfig"
import { filesUnder, type HostileDaemon } from "./HostileDaemon"

/** A GitHub token's shape, with enough after the prefix to be one (the emulator's are `ghp_sim` and 32 hex). */
const TOKEN_SHAPE = /(?:ghp_|github_pat_|ghs_)[A-Za-z0-9_]{20,}/

const gitIn = (gitDir: string, ...args: ReadonlyArray<string>) =>
  execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" } })

/** The emulator's branches, with their shas. */
export const remoteBranches = (daemon: HostileDaemon): ReadonlyMap<string, string> =>
  new Map(
    gitIn(daemon.remoteGitDir, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split(" ") as [string, string])
  )

/** A file of a branch on the emulator, or undefined. */
export const remoteFile = (daemon: HostileDaemon, branch: string, file: string): string | undefined => {
  try {
    return gitIn(daemon.remoteGitDir, "show", `${branch}:${file}`)
  } catch {
    return undefined
  }
}

const lastFailure = (view: RunView) => view.attempts.at(-1)?.failure

/** What the Board says of a Run, in one line for a failing assertion. */
export const describeRun = (view: RunView): string => {
  const failure = lastFailure(view)
  const said = view.transcript.lines.map((line) => line.text).filter((text) => text !== "").slice(-6).join(" | ")
  return `${view.run.state} after ${view.attempts.length} Attempt(s)` +
    (failure === undefined ? "" : `: ${failure.tag}: ${failure.reason} [${failure.evidence.replace(/\s+/g, " ").slice(0, 400)}]`) +
    (view.result?.pullRequestUrl === undefined ? "" : `; pull request ${view.result.pullRequestUrl}`) +
    `; transcript: ${said.slice(0, 400)}`
}

/**
 * The attack came to nothing and the work still went out: the Run succeeded, its pull request is on the emulator,
 * and the branch there holds the agent's change (the push went to GitHub, not wherever the agent pointed git).
 */
export const neutralised = (daemon: HostileDaemon, view: RunView, attack: string): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (view.run.state !== "Succeeded") return [`the Run did not succeed: ${describeRun(view)}`]
  const url = view.result?.pullRequestUrl ?? ""
  if (!url.startsWith(`${daemon.sim.url}/${REPOSITORY}/pull/`)) problems.push(`no pull request on the emulator: ${describeRun(view)}`)
  const branch = view.result?.branch ?? ""
  const changes = remoteFile(daemon, branch, "CHANGES.md") ?? ""
  if (!changes.includes(`a change made by the ${attack} attack`)) problems.push(`the emulator's ${branch} does not hold the agent's change`)
  return problems
}

/** The Run failed and says why, and nothing of it reached the emulator (no Run branch, no salvage branch). */
export const refused = (daemon: HostileDaemon, view: RunView, reason: RegExp): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const failure = lastFailure(view)
  if (view.run.state !== "Failed" || failure === undefined) problems.push(`the Run was not refused: ${describeRun(view)}`)
  else if (!reason.test(`${failure.reason}\n${failure.evidence}`)) problems.push(`the refusal does not say ${reason}: ${describeRun(view)}`)
  const pushed = [...remoteBranches(daemon).keys()].filter((b) => b.includes(`/${view.run.number}-`) || b.includes(view.run.id))
  if (pushed.length > 0) problems.push(`the refused work reached the emulator: ${pushed.join(", ")}`)
  return problems
}

/** The agent got to the end of its attack: the Run's transcript has its last line. */
export const attackRan = (view: RunView, attack: string): boolean =>
  view.transcript.lines.some((line) => line.text.includes(`hostile agent: attack ${attack} done`))

/** A planted program ran as the daemon: its marker is there. */
export const markersLeft = (daemon: HostileDaemon): ReadonlyArray<string> => readdirSync(daemon.markers)

/** Each planted program that ran: in which git directory and git command, and whether git had lent it the token. */
export const markerFindings = (daemon: HostileDaemon): ReadonlyArray<string> =>
  markersLeft(daemon).map((name) => {
    const text = readFileSync(join(daemon.markers, name), "utf8")
    const variable = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(text)?.[1]
    const gitDir = variable("GIT_DIR")
    const where = gitDir === undefined ? `in ${text.split("\n")[0] ?? "?"}` : `for ${relative(daemon.dir, gitDir) || gitDir}`
    const service = variable("GIT_EXT_SERVICE")
    const lent = variable("GIT_ASKPASS") === undefined ? "" : ", with GIT_ASKPASS naming the lent token"
    return `${name}: a planted program ran ${where}${service === undefined ? "" : ` (${service})`}${lent}`
  })

/** What reached the listener other than the agent's own uploads, and every credential anything sent it. */
export const listenerFindings = (daemon: HostileDaemon): ReadonlyArray<string> =>
  daemon.listener.connections().flatMap((connection) => [
    ...connection.requests.filter((line) => !/^POST \/loot\/[a-z-]+ HTTP/.test(line)).map((line) => `a request the agent did not send: ${line}`),
    ...connection.credentials.map((credential) => `credentials sent: ${credential.includes(daemon.token) ? "the GitHub token" : credential.slice(0, 12) + "…"}`),
    ...(connection.raw.includes(daemon.token) ? [`the GitHub token arrived (${connection.requests[0] ?? "no request line"})`] : [])
  ])

/**
 * Where the GitHub token is that it should not be: any file under the daemon's folder (ledger, logs, Worker root,
 * what the agent kept) but the token file itself, the listener, every commit on the emulator (any branch, as
 * text), its pull requests, and each Run's page JSON and stored transcript.
 */
export const tokenFindings = (
  daemon: HostileDaemon,
  views: ReadonlyArray<RunView>,
  /** The emulator's pull requests as its API answers them (titles, bodies). */
  pulls: unknown
): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const file of filesUnder(daemon.dir)) {
    if (file === join(daemon.dir, "secrets", "github-token")) continue
    let text = ""
    try {
      text = readFileSync(file, "latin1")
    } catch {
      continue
    }
    if (text.includes(daemon.token)) found.push(`the file ${relative(daemon.dir, file)}`)
  }
  if (daemon.listener.connections().some((c) => c.raw.includes(daemon.token) || c.credentials.some((x) => x.includes(daemon.token)))) {
    found.push("the listener")
  }
  const history = gitIn(daemon.remoteGitDir, "log", "--all", "-p", "--text", "--format=commit %H%n%B")
  if (history.includes(daemon.token)) found.push("a commit on the emulator")
  const shaped = TOKEN_SHAPE.exec(history)
  if (shaped !== null) found.push(`a token-shaped string (${shaped[0].slice(0, 7)}…) in a commit on the emulator`)
  if (JSON.stringify(pulls).includes(daemon.token)) found.push("a pull request's title or body")
  for (const view of views) if (JSON.stringify(view).includes(daemon.token)) found.push(`the Board's JSON of Run ${view.run.id}`)
  const transcript = queryLedger(join(daemon.dir, "state", "ledger.db"), "SELECT text FROM usine_transcript_rows").map((row) => String(row["text"]))
  if (transcript.some((text) => text.includes(daemon.token))) found.push("the ledger's transcript")
  return found
}
