import { Clock, Effect } from "effect"
import { BASE_VARIABLES } from "./AgentEnvironment"
import { VerifyEntry, type VerifyResult } from "./WorkerExecutor/AttemptJournal"
import { defaultOutputCaps } from "@usine/core/config/OutputConfig"
import type { RedactorService } from "@usine/core/text/Redactor"
import { type SandboxRequest, sandboxCommand } from "./Sandbox"
import type { TransportError, WorkerTransportShape } from "./WorkerTransport"

/** How much of a verify command's output is kept, from its end, when the Loop does not say (`output.verify_bytes`). */
const VERIFY_OUTPUT_BYTES = defaultOutputCaps.verifyBytes

interface VerifyOptions {
  readonly transport: WorkerTransportShape
  readonly worktree: string
  readonly commands: ReadonlyArray<string>
  readonly timeoutMs: number
  readonly redactor: RedactorService
  /** The daemon's environment: only its harmless base variables reach the commands. */
  readonly daemonEnv: Readonly<Record<string, string | undefined>>
  /** Runs each command in a bubblewrap sandbox (ADR 0054): the worktree writable, `network` reachable. */
  readonly sandbox?: VerifySandbox | undefined
  /** The tail kept of each command's output, where test runners print their failures; `VERIFY_OUTPUT_BYTES` when absent. */
  readonly outputBytes?: number | undefined
}

/** Where a round's sandbox keeps its bridges, and what it sees and reaches besides the worktree. */
export interface VerifySandbox extends Pick<SandboxRequest, "readOnly" | "tools" | "network" | "confinement"> {
  /** A folder of the round's own in the Attempt's folder. */
  readonly dir: string
}

/** The output as kept: only the transport's tail of it ever reached the daemon, the rest is counted. */
const tail = (text: string, dropped: number): string => (dropped > 0 ? `…[${dropped} bytes dropped]\n${text}` : text)

/**
 * Runs the Loop's `verify:` commands in the worktree through the Worker's transport, in order, up to the first
 * failure. They run the repository's own code, so they get a clean environment (`env -i` with the base
 * variables only): no daemon token, no agent grant. Output is stdout and stderr together, tail kept, redacted.
 */
export const runVerifyRound = Effect.fn("Verify.round")(function* (
  options: VerifyOptions,
  round: number
): Effect.fn.Return<VerifyEntry, TransportError> {
  const base = (home: string | undefined, tmp: string | undefined) =>
    BASE_VARIABLES.flatMap((name) => {
      const value = name === "HOME" ? home : name === "TMPDIR" ? tmp : options.daemonEnv[name]
      return value === undefined ? [] : [`${name}=${value}`]
    })
  const commandArgv = (env: ReadonlyArray<string>, command: string) =>
    ["env", "-i", ...env, "GIT_TERMINAL_PROMPT=0", "sh", "-c", 'exec 2>&1; eval "$1"', "usine-verify", command]
  const argvOf = (command: string) =>
    options.sandbox === undefined
      ? Effect.succeed(commandArgv(base(options.daemonEnv["HOME"], options.daemonEnv["TMPDIR"]), command))
      : options.transport.makeDirectory(options.sandbox.dir).pipe(
          Effect.zipRight(
            sandboxCommand(options.transport, {
              ...options.sandbox,
              workdir: options.worktree,
              writable: [options.worktree],
              homeFiles: [],
              path: options.daemonEnv["PATH"],
              argv: (home) => commandArgv(base(home, "/tmp"), command)
            })
          ),
          Effect.map((sandboxed) => sandboxed.argv)
        )
  const results: Array<VerifyResult> = []
  for (const command of options.commands) {
    const started = yield* Clock.currentTimeMillis
    const argv = yield* argvOf(command)
    const ran = yield* options.transport
      .exec({
        argv,
        cwd: options.worktree,
        timeoutMs: options.timeoutMs,
        maxOutputBytes: options.outputBytes ?? VERIFY_OUTPUT_BYTES
      })
      .pipe(
        Effect.map((r) => ({
          command,
          passed: r.exitCode === 0,
          exitCode: r.exitCode,
          output: options.redactor.redact(tail(`${r.stdout}${r.stderr}`.trimEnd(), r.outputDropped ?? 0))
        })),
        Effect.catchTag("HostCommandTimedOut", (timedOut) =>
          Effect.succeed({ command, passed: false, exitCode: null, output: `timed out after ${Math.round(timedOut.timeoutMs / 1000)} s` })
        )
      )
    const result: VerifyResult = { ...ran, durationMs: (yield* Clock.currentTimeMillis) - started }
    results.push(result)
    if (!result.passed) break
  }
  return new VerifyEntry({ at: yield* Clock.currentTimeMillis, round, results })
})

/** The next turn's prompt after a failed round: what failed and what it printed. */
export const verifyFeedback = (entry: VerifyEntry): string => {
  const failed = entry.results.filter((r) => !r.passed)
  const parts = failed.map(
    (r) =>
      `Command: ${r.command}\nExit code: ${r.exitCode ?? "none (timed out)"}\nOutput (its end):\n${r.output}`
  )
  return [
    "Verification failed: the repository's checks do not pass with your changes.",
    ...parts,
    "Fix it: change the code so that the command succeeds, keeping the work you already did."
  ].join("\n\n")
}

/** The AgentFailure evidence when verification still fails after the last round. */
export const verifyEvidence = (entry: VerifyEntry): string =>
  entry.results
    .filter((r) => !r.passed)
    .map((r) => `$ ${r.command}\n(exit ${r.exitCode ?? "none"})\n${r.output}`)
    .join("\n\n")
