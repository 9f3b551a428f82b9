import { Effect } from "effect"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { GitCommandFailed } from "./WorkspaceFailures"

/**
 * Every git command the daemon runs reads no configuration but its own (ADR 0053): no system or global file, no
 * user attributes or excludes, and these settings, which win over any repository file. Git never asks a terminal,
 * no credential helper stores a lent token, no hook, fsmonitor, pager, signing program or external diff runs, no
 * redirect takes a request to another host, and no transport but local paths is allowed unless the command
 * names one (`allowScheme`).
 */
const DAEMON_GIT_CONFIG: ReadonlyArray<string> = [
  "credential.helper=",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.untrackedCache=false",
  "core.pager=cat",
  "core.sshCommand=false",
  "core.askPass=",
  "commit.gpgsign=false",
  "tag.gpgsign=false",
  "diff.external=",
  "gc.auto=0",
  "maintenance.auto=false",
  "http.followRedirects=false",
  "http.proxy=",
  "core.attributesFile=/dev/null",
  "protocol.allow=never",
  // A repository's `protocol.<name>.allow` wins over `protocol.allow`: each transport is named here too.
  "protocol.ext.allow=never",
  "protocol.fd.allow=never",
  "protocol.ssh.allow=never",
  "protocol.git.allow=never",
  "protocol.file.allow=always",
  // A root daemon's agent owns its worktree (ADR 0084); the daemon reads it with the settings above, never its config.
  "safe.directory=*"
]

/** The whole environment of a daemon git command: nothing of the daemon's own reaches it. */
const DAEMON_GIT_ENV: Readonly<Record<string, string>> = {
  HOME: "/dev/null",
  XDG_CONFIG_HOME: "/dev/null",
  LANG: "C",
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_ATTR_NOSYSTEM: "1",
  GIT_NO_REPLACE_OBJECTS: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_PROTOCOL_FROM_USER: "0",
  GIT_OPTIONAL_LOCKS: "0"
}

const VARIABLE = /^[A-Z_][A-Z0-9_]*$/

interface RunGitOptions {
  /** Git variables for this command (`GIT_ASKPASS`, `GIT_INDEX_FILE`, identities); checked to be names. */
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  readonly stdin?: string
  /** The one network transport this command may use: the scheme of the GitHub URL it names. */
  readonly allowScheme?: "http" | "https"
  /** The most of its output read; more is `GitCommandFailed` with `outputDropped` (ADR 0085). 16 MiB when absent. */
  readonly maxOutputBytes?: number
}

/** The `-c` settings of every daemon git command: `DAEMON_GIT_CONFIG`, and the one network scheme it may use. */
export const daemonGitConfig = (allowScheme?: "http" | "https"): ReadonlyArray<string> => [
  ...DAEMON_GIT_CONFIG,
  ...(["http", "https"] as const).map((scheme) => `protocol.${scheme}.allow=${allowScheme === scheme ? "always" : "never"}`)
]

/**
 * `argv` run with the environment of a daemon git command: `env -i` keeps only the host's `PATH` (read by the
 * host's shell, so an SSH Worker's own) and the fixed variables above, whatever the transport passes on.
 */
export const daemonEnvArgv = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}): ReadonlyArray<string> => {
  const assignments = Object.entries({ ...DAEMON_GIT_ENV, ...env }).map(([name, value]) => {
    if (!VARIABLE.test(name) || value.includes("\0")) throw new Error(`invalid git variable ${JSON.stringify(name)}`)
    return `${name}=${value}`
  })
  return ["/bin/sh", "-c", 'exec env -i PATH="$PATH" "$@"', "usine-git", ...assignments, ...argv]
}

/** The argv of a daemon git command. */
const daemonGitArgv = (args: ReadonlyArray<string>, options: RunGitOptions = {}): ReadonlyArray<string> =>
  daemonEnvArgv(["git", ...daemonGitConfig(options.allowScheme).flatMap((setting) => ["-c", setting]), ...args], options.env)

/**
 * `http` or `https` for a GitHub URL, `undefined` for an absolute path on the Worker (a local repository: the
 * file transport, always allowed, lends no token); anything else is refused before git sees it.
 */
export const schemeOf = (url: string): "http" | "https" | undefined => {
  if (url.startsWith("/") && !url.startsWith("//")) return undefined
  const protocol = URL.canParse(url) ? new URL(url).protocol : ""
  if (protocol === "https:") return "https"
  if (protocol === "http:") return "http"
  throw new Error(`not an http(s) URL: ${JSON.stringify(url)}`)
}

const gitCommandName = (args: ReadonlyArray<string>) =>
  `git ${args.filter((arg) => !arg.startsWith("--git-dir") && !arg.startsWith("--work-tree")).slice(0, 3).join(" ")}`

/** Runs a daemon git command on the Worker's host; a non-zero exit is a `GitCommandFailed` carrying stderr. */
export const runGit = (
  transport: WorkerTransportShape,
  args: ReadonlyArray<string>,
  options: RunGitOptions = {}
): Effect.Effect<string, TransportError | GitCommandFailed> =>
  Effect.suspend(() =>
    transport.exec({
      argv: daemonGitArgv(args, options),
      ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes })
    })
  ).pipe(
    // A cut output would be read as the whole answer (a diff, a commit list): it is a failure instead.
    Effect.filterOrFail(
      (result) => (result.outputDropped ?? 0) === 0,
      (result) =>
        new GitCommandFailed({
          command: gitCommandName(args),
          exitCode: result.exitCode,
          stderr: `its output is larger than usine reads (${result.outputDropped} bytes over)`,
          outputDropped: result.outputDropped ?? 0
        })
    ),
    Effect.filterOrFail(
      (result) => result.exitCode === 0,
      (result) =>
        new GitCommandFailed({
          command: gitCommandName(args),
          exitCode: result.exitCode,
          stderr: result.stderr
        })
    ),
    Effect.map((result) => result.stdout)
  )
