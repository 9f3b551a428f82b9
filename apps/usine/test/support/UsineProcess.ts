import { type ChildProcess, spawn } from "node:child_process"
import { Data, Duration, Effect } from "effect"
import { archiveProcessLogs } from "./archiveProcessLogs"
import { USINE_BIN } from "./usineBin"

export class ProcessTimeout extends Data.TaggedError("ProcessTimeout")<{ readonly waited: string; readonly output: string }> {
  override get message() {
    return `timed out waiting for ${this.waited}; output so far:\n${this.output}`
  }
}

/** The real CLI as a child process: its output as it arrives, signals, and its exit. */
export interface UsineProcess {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first match of `pattern` in stdout (waiting for more output as needed). */
  readonly waitFor: (pattern: RegExp, timeout?: Duration.DurationInput) => Effect.Effect<RegExpMatchArray, ProcessTimeout>
  /** The exit code (null when a signal ended it), waiting at most `timeout`. */
  readonly exit: (timeout?: Duration.DurationInput) => Effect.Effect<number | null, ProcessTimeout>
  readonly signal: (signal: NodeJS.Signals) => Effect.Effect<void>
}

/**
 * Starts `usine <args>` in `cwd`; the scope's end kills it if it still runs, then archives its output and the log
 * files under `cwd` for the run's token scan (ADR 0043).
 */
export const startUsine = (
  cwd: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>> = {},
  bin: string = USINE_BIN
) =>
  Effect.acquireRelease(
    Effect.sync((): { readonly usine: UsineProcess; readonly closed: Promise<void> } => {
      const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      let err = ""
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      // After the exit and the end of its output: what it printed last is in `out` and `err`.
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk))
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk))
      const all = () => `--- stdout\n${out}\n--- stderr\n${err}`
      const waitFor = (pattern: RegExp, timeout: Duration.DurationInput = "60 seconds") =>
        Effect.async<RegExpMatchArray>((resume) => {
          const check = () => {
            const match = pattern.exec(out)
            if (match === null) return false
            resume(Effect.succeed(match))
            return true
          }
          if (check()) return
          const onData = () => {
            if (check()) child.stdout!.off("data", onData)
          }
          child.stdout!.on("data", onData)
          return Effect.sync(() => child.stdout!.off("data", onData))
        }).pipe(
          Effect.timeoutFail({ duration: timeout, onTimeout: () => new ProcessTimeout({ waited: String(pattern), output: all() }) })
        )
      const usine: UsineProcess = {
        child,
        stdout: () => out,
        stderr: () => err,
        waitFor,
        exit: (timeout: Duration.DurationInput = "60 seconds") =>
          Effect.promise(() => exited).pipe(
            Effect.timeoutFail({ duration: timeout, onTimeout: () => new ProcessTimeout({ waited: "the exit", output: all() }) })
          ),
        signal: (signal) => Effect.sync(() => void child.kill(signal))
      }
      return { usine, closed }
    }),
    ({ closed, usine }) =>
      Effect.sync(() => usine.child.exitCode === null && usine.child.signalCode === null && usine.child.kill("SIGKILL")).pipe(
        // An agent session that kept the daemon's output open must not hold the test up.
        Effect.zipRight(Effect.ignore(Effect.timeout(Effect.promise(() => closed), "3 seconds"))),
        Effect.zipRight(Effect.sync(() => archiveProcessLogs({ cwd, stdout: usine.stdout(), stderr: usine.stderr() })))
      )
  ).pipe(Effect.map(({ usine }) => usine))
