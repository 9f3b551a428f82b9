import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"

const bin = join(dirname(dirname(dirname(fileURLToPath(import.meta.url)))), "apps", "usine", "bin", "usine.js")

/** usine from the clone's sources, as a contributor runs it (tsx). */
export const SOURCE_USINE: ReadonlyArray<string> = [process.execPath, bin]

/** `usine up` as users run it: its own Node process, started in a folder holding usine.yaml. */
interface DaemonProcess {
  readonly pid: number
  readonly output: () => string
  /** Resolves with the first line matching `pattern` and the time (ms since the epoch) it was first seen. */
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Effect.Effect<{ readonly match: RegExpMatchArray; readonly at: number }>
  /** SIGTERM (drain), then the exit code. */
  readonly stop: Effect.Effect<number | null>
}

/** Starts `usine up` in `cwd` (`usine` is the sources unless another command is given); the scope's end kills it if it still runs. */
export const startDaemon = (cwd: string, usine: ReadonlyArray<string> = SOURCE_USINE) =>
  Effect.acquireRelease(
    Effect.sync((): DaemonProcess & { readonly child: ChildProcess } => {
      const [file = process.execPath, ...args] = usine
      const child = spawn(file, [...args, "up"], { cwd, env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] })
      let out = ""
      const seen: Array<{ readonly length: number; readonly at: number }> = []
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.setEncoding("utf8").on("data", (chunk: string) => {
          out += chunk
          seen.push({ length: out.length, at: Date.now() })
        })
      }
      // When a match was first in the output: the time its chunk arrived.
      const arrival = (end: number) => seen.find((s) => s.length >= end)?.at ?? Date.now()
      const waitFor = (pattern: RegExp, timeoutMs = 120_000) =>
        Effect.async<{ readonly match: RegExpMatchArray; readonly at: number }>((resume) => {
          const deadline = Date.now() + timeoutMs
          const timer = setInterval(() => {
            const match = pattern.exec(out)
            if (match !== null) {
              clearInterval(timer)
              resume(Effect.succeed({ match, at: arrival((match.index ?? 0) + match[0].length) }))
            } else if (Date.now() > deadline || child.exitCode !== null) {
              clearInterval(timer)
              resume(Effect.dieMessage(`usine up never printed ${pattern}; output:\n${out.slice(-4000)}`))
            }
          }, 20)
          return Effect.sync(() => clearInterval(timer))
        })
      return {
        child,
        pid: child.pid ?? 0,
        output: () => out,
        waitFor,
        stop: Effect.promise(() => {
          child.kill("SIGTERM")
          return exited
        }).pipe(Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`usine up did not drain:\n${out.slice(-4000)}`) }), Effect.orDie)
      }
    }),
    (daemon) => Effect.sync(() => daemon.child.exitCode === null && daemon.child.signalCode === null && daemon.child.kill("SIGKILL"))
  )
