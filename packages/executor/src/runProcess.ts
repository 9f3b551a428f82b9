import { Duration, Effect } from "effect"
import { spawn } from "node:child_process"
import { childEnvironment } from "./childEnvironment"
import { constants } from "node:os"
import { makeTailBuffer } from "./TailBuffer"
import { EXEC_OUTPUT_BYTES, HostCommandTimedOut, HostOperationFailed } from "./WorkerTransport"

export interface ProcessResult {
  readonly exitCode: number
  readonly stdout: Uint8Array
  readonly stderr: string
  /** Bytes of stdout and stderr printed beyond `maxOutputBytes` (each stream keeps its last ones). */
  readonly outputDropped: number
}

/**
 * Runs a local process to completion, feeding `stdin` and keeping the last `maxOutputBytes` of each of its
 * outputs (16 MiB when absent), counting the rest. It leads its own process group, so interruption or the timeout
 * kills it together with everything it started.
 */
export const runProcess = (
  host: string,
  command: {
    readonly argv: ReadonlyArray<string>
    readonly cwd?: string | undefined
    /** The whole environment; the allow-listed part of the daemon's when absent (`childEnvironment`). */
    readonly env?: Readonly<Record<string, string | undefined>> | undefined
    readonly stdin?: string | undefined
    readonly timeoutMs?: number | undefined
    readonly maxOutputBytes?: number | undefined
  }
): Effect.Effect<ProcessResult, HostOperationFailed | HostCommandTimedOut> => {
  const [file, ...args] = command.argv
  if (file === undefined) return Effect.fail(new HostOperationFailed({ host, operation: "run", detail: "empty argv" }))
  const run = Effect.async<ProcessResult, HostOperationFailed>((resume) => {
    const child = spawn(file, args, { cwd: command.cwd, env: command.env ?? childEnvironment(), detached: true, stdio: "pipe" })
    const stdout = makeTailBuffer(command.maxOutputBytes ?? EXEC_OUTPUT_BYTES)
    const stderr = makeTailBuffer(command.maxOutputBytes ?? EXEC_OUTPUT_BYTES)
    let done = false
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.stdin.on("error", () => {})
    child.on("error", (cause) => {
      if (done) return
      done = true
      resume(Effect.fail(new HostOperationFailed({ host, operation: `run ${file}`, detail: cause.message })))
    })
    child.on("close", (code, signal) => {
      if (done) return
      done = true
      resume(
        Effect.succeed({
          exitCode: code ?? 128 + (signal === null ? 0 : constants.signals[signal]),
          stdout: stdout.bytes(),
          stderr: stderr.text(),
          outputDropped: stdout.dropped() + stderr.dropped()
        })
      )
    })
    child.stdin.end(command.stdin ?? "")
    return Effect.sync(() => {
      if (done || child.pid === undefined) return
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    })
  })
  const timeoutMs = command.timeoutMs
  if (timeoutMs === undefined) return run
  // Interruptible even inside a finalizer, so the timeout can end it (and the cleanup kill the group).
  return Effect.interruptible(run).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => new HostCommandTimedOut({ host, command: file, timeoutMs })
    })
  )
}
