import { Effect } from "effect"
import { shellQuote } from "../shellQuote"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { daemonEnvArgv, daemonGitConfig } from "./runGit"
import { GitCommandFailed } from "./WorkspaceFailures"

/**
 * What every script starts with. `git` is the daemon's git (its config wins over any repository file, ADR 0053);
 * `fail <step>` ends the script at the first command that fails, naming the step and its exit code on stderr's last
 * line, which the script alone writes last.
 */
const prelude = (): string => `set -u
git() { command git ${daemonGitConfig().map((setting) => `-c ${shellQuote(setting)}`).join(" ")} "$@"; }
fail() { c=$?; printf '\\nusine-step %s %s\\n' "$1" "$c" >&2; exit 99; }
`

const STEP_FAILED = /\nusine-step ([a-z-]+) (\d+)\n?$/

interface RunGitScriptOptions {
  /** Variables for every command of the script (`GIT_DIR`, `GIT_INDEX_FILE`, identities); checked to be names. */
  readonly env?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
  /** The most of its stdout read; more is `GitCommandFailed` with `outputDropped` (ADR 0085). 16 MiB when absent. */
  readonly maxOutputBytes?: number
}

/**
 * Runs a fixed `sh` program of daemon git commands as one process (issue 31: a daemon process costs 7 to 12 ms
 * to start, the git commands inside a script a fraction of that), with the environment of `runGit`. The program
 * is usine's text; whatever else it works on (paths, shas, messages) comes as positional parameters `$1`…, never
 * as text of the program. A failed step is `GitCommandFailed` with `step` and that step's own exit code.
 */
export const runGitScript = (
  transport: WorkerTransportShape,
  name: string,
  script: string,
  args: ReadonlyArray<string>,
  options: RunGitScriptOptions = {}
): Effect.Effect<string, TransportError | GitCommandFailed> =>
  Effect.suspend(() =>
    transport.exec({
      argv: daemonEnvArgv(["/bin/sh", "-c", prelude() + script, `usine-${name}`, ...args], options.env),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes })
    })
  ).pipe(
    Effect.flatMap((result) => {
      // A cut output would be read as the whole answer: it is a failure instead, as `runGit` has it.
      if ((result.outputDropped ?? 0) > 0) {
        return Effect.fail(new GitCommandFailed({
          command: `git script ${name}`,
          exitCode: result.exitCode,
          stderr: `its output is larger than usine reads (${result.outputDropped} bytes over)`,
          outputDropped: result.outputDropped ?? 0
        }))
      }
      if (result.exitCode === 0) return Effect.succeed(result.stdout)
      const failed = STEP_FAILED.exec(result.stderr)
      return Effect.fail(new GitCommandFailed({
        command: failed === null ? `git script ${name}` : `git script ${name}, step ${failed[1]}`,
        exitCode: failed === null ? result.exitCode : Number(failed[2]),
        stderr: failed === null ? result.stderr : result.stderr.slice(0, failed.index),
        ...(failed === null ? {} : { step: failed[1] as string })
      }))
    })
  )
