import { Deferred, Effect } from "effect"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { childEnvironment } from "./childEnvironment"
import { type OpenReverseForward, type ReverseForward, ReverseForwardFailed } from "./ReverseForward"

/** What the host prints once its command runs: the forward was granted before it (ssh handles replies in order). */
const READY = "usine-forward-ready"

/** How long opening a forward may take, connection and authentication included. */
const OPEN_TIMEOUT_MS = 30_000

/** The most of ssh's stderr kept, from its end, to say why a forward failed or closed. */
const STDERR_BYTES = 4096

const ALLOCATED = /Allocated port (\d+) for remote forward/

const killGroup = (child: ChildProcessWithoutNullStreams, signal: NodeJS.Signals) => {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // already gone
  }
}

/** Why a forward's ssh ended, in its words (the note of the port it was given aside). */
const endedWith = (code: number | null, signal: NodeJS.Signals | null, stderr: string) => {
  const said = stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !ALLOCATED.test(line)).join("; ")
  return `ssh ${signal === null ? `exited with ${code}` : `was ended by ${signal}`}${said === "" ? "" : `: ${said}`}`
}

/**
 * Reverse forwards to a host reached with the system OpenSSH client (ADR 0097), each its own ssh connection (never
 * the shared control connection: a forward asked through it outlives its asker, and a master kept by ControlPersist
 * exits when idle even while a forward listens). `ssh -R 127.0.0.1:<remote|0>:127.0.0.1:<port>` with
 * `ExitOnForwardFailure`, so a port the host cannot give ends the process at once; the host's command says it runs,
 * then reads its input, a pipe from this process: when the daemon dies the command reads its end, the connection
 * closes and the host frees the port for the next daemon to ask again.
 */
export const make = (worker: { readonly destination: string; readonly sshOptions?: ReadonlyArray<string> }): OpenReverseForward =>
  (request) => {
    const host = worker.destination
    const failed = (detail: string) => new ReverseForwardFailed({ host, remotePort: request.remotePort, detail })
    const argv = [
      // ssh keeps the first value given for an option: these come before the Worker's own.
      "-o", "BatchMode=yes",
      "-o", "StrictHostKeyChecking=yes",
      "-o", "ControlMaster=no",
      "-o", "ControlPath=none",
      "-o", "ExitOnForwardFailure=yes",
      "-o", "ServerAliveInterval=15",
      "-o", "ServerAliveCountMax=3",
      "-o", "ConnectTimeout=20",
      "-o", "LogLevel=INFO",
      ...(worker.sshOptions ?? []),
      "-R", `127.0.0.1:${request.remotePort ?? 0}:127.0.0.1:${request.port}`,
      host,
      `echo ${READY}; exec cat >/dev/null`
    ]
    const open = Effect.gen(function* () {
      const closed = yield* Deferred.make<string>()
      return yield* Effect.async<{ readonly child: ChildProcessWithoutNullStreams; readonly forward: ReverseForward }, ReverseForwardFailed>((resume) => {
        // Its own process group: a Ctrl-C to the daemon's does not end the forward before the drain is over.
        const child = spawn("ssh", argv, { detached: true, stdio: "pipe", env: childEnvironment() })
        let stdout = ""
        let stderr = ""
        let ready = false
        let allocated: number | undefined
        let resumed = false
        const settle = () => {
          if (resumed || !ready) return
          const remotePort = request.remotePort ?? allocated
          // Asked for any port, ssh names the one it got on stderr, which may be read after the command's stdout.
          if (remotePort === undefined) return
          resumed = true
          resume(Effect.succeed({ child, forward: { remotePort, closed: Deferred.await(closed) } }))
        }
        child.stdin.on("error", () => {})
        child.stdout.on("data", (chunk: Buffer) => {
          stdout = `${stdout}${chunk.toString("utf8")}`.slice(-64)
          if (stdout.includes(READY)) ready = true
          settle()
        })
        child.stderr.on("data", (chunk: Buffer) => {
          stderr = `${stderr}${chunk.toString("utf8")}`.slice(-STDERR_BYTES)
          const port = ALLOCATED.exec(stderr)?.[1]
          if (port !== undefined) allocated = Number(port)
          settle()
        })
        child.on("error", (cause) => {
          if (!resumed) {
            resumed = true
            resume(Effect.fail(failed(`ssh could not be started: ${cause.message}`)))
          }
        })
        child.on("close", (code, signal) => {
          const why = endedWith(code, signal, stderr)
          Deferred.unsafeDone(closed, Effect.succeed(why))
          if (!resumed) {
            resumed = true
            resume(Effect.fail(failed(why)))
          }
        })
        return Effect.sync(() => killGroup(child, "SIGKILL"))
      })
    })
    return Effect.acquireRelease(
      Effect.interruptible(open).pipe(
        Effect.timeoutFail({ duration: OPEN_TIMEOUT_MS, onTimeout: () => failed(`no answer within ${OPEN_TIMEOUT_MS / 1000} s`) })
      ),
      ({ child }) =>
        Effect.async<void>((resume) => {
          if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
          const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5_000)
          child.once("close", () => {
            clearTimeout(timer)
            resume(Effect.void)
          })
          killGroup(child, "SIGTERM")
        })
    ).pipe(Effect.map(({ forward }) => forward))
  }
