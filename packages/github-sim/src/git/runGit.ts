import { execFile } from "node:child_process"
import { Data, Effect } from "effect"

/** A git command exited with a failure. */
export class GitCommandFailed extends Data.TaggedError("GitCommandFailed")<{
  readonly args: ReadonlyArray<string>
  readonly exitCode: number | null
  readonly stderr: string
}> {
  override get message() {
    return `git ${this.args.join(" ")} failed (${this.exitCode ?? "signal"}): ${this.stderr.trim()}`
  }
}

/** Environment that keeps the machine's git configuration out of the emulator's repositories. */
export const isolatedGitEnv = (): Record<string, string> => ({
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0"
})

/** Runs git to completion and returns its stdout; interruption kills the process. */
export const runGit = (
  args: ReadonlyArray<string>,
  options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}
): Effect.Effect<string, GitCommandFailed> =>
  Effect.async<string, GitCommandFailed>((resume) => {
    const child = execFile(
      "git",
      [...args],
      {
        cwd: options.cwd,
        env: { ...process.env, ...isolatedGitEnv(), ...options.env },
        maxBuffer: 64 * 1024 * 1024,
        encoding: "utf8"
      },
      (error, stdout, stderr) => {
        if (error === null) resume(Effect.succeed(stdout))
        else {
          const exitCode = typeof error.code === "number" ? error.code : null
          resume(Effect.fail(new GitCommandFailed({ args, exitCode, stderr: String(stderr) || error.message })))
        }
      }
    )
    return Effect.sync(() => child.kill("SIGKILL"))
  })
