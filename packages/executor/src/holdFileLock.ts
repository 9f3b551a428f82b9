import { Deferred, Effect, Option, type Scope } from "effect"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { childEnvironment } from "./childEnvironment"
import { HostCommandTimedOut, HostOperationFailed, type TransportError, WorkerUnreachable } from "./WorkerTransport"

const HELD = 75
const NO_FLOCK = 72
const LOCKED = "usine-locked"
const TAKE_TIMEOUT_MS = 30_000

/**
 * The `sh -c` program that holds a lock: `$1` the lock file, `$2` the note naming the holder. It takes `flock -n` on
 * the file through fd 9, writes the note into the file (the inode stays the same, so the lock stays), says so on
 * stdout, then waits for its stdin to end. When another process holds the lock it prints that one's note and exits 75.
 */
export const fileLockScript = `f=$1
command -v flock >/dev/null 2>&1 || { echo "flock is not installed on this host" >&2; exit ${NO_FLOCK}; }
exec 9<>"$f" || exit 1
if ! flock -n 9; then cat "$f"; exit ${HELD}; fi
printf '%s\\n' "$2" >"$f"
echo ${LOCKED}
exec cat >/dev/null
`

type Taken =
  | { readonly _tag: "Held"; readonly child: ChildProcessWithoutNullStreams; readonly lost: Deferred.Deferred<string> }
  | { readonly _tag: "HeldByOther"; readonly note: string }

const killGroup = (child: ChildProcessWithoutNullStreams) => {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/**
 * Runs `argv` (the lock program on the host: locally, or through ssh) with its stdin a pipe from this process and
 * holds the lock it takes for the scope. The pipe is what ties the lock to the daemon: when the daemon dies, or its
 * ssh connection drops, the program reads the end of its input and exits, and the kernel releases the lock. The
 * program leads its own process group, so a Ctrl-C sent to the daemon's does not end it before the drain is over.
 */
export const holdFileLock = (
  host: string,
  argv: ReadonlyArray<string>,
  options: { readonly unreachableExit?: number } = {}
): Effect.Effect<Option.Option<string>, TransportError, Scope.Scope> =>
  Effect.gen(function* () {
    const [file, ...args] = argv
    if (file === undefined) return yield* new HostOperationFailed({ host, operation: "lock", detail: "empty argv" })
    const lost = yield* Deferred.make<string>()
    const started = Effect.async<Taken, TransportError>((resume) => {
      const child = spawn(file, args, { detached: true, stdio: "pipe", env: childEnvironment() })
      let stdout = ""
      let stderr = ""
      let held = false
      child.stdin.on("error", () => {})
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8")
        if (!held && stdout.split("\n").includes(LOCKED)) {
          held = true
          resume(Effect.succeed({ _tag: "Held", child, lost }))
        }
      })
      child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")))
      child.on("error", (cause) => {
        if (!held) resume(Effect.fail(new HostOperationFailed({ host, operation: `lock (${file})`, detail: cause.message })))
      })
      child.on("close", (code) => {
        if (held) {
          Deferred.unsafeDone(lost, Effect.succeed(stderr.trim() || `exit ${code}`))
          return
        }
        if (code === HELD) return resume(Effect.succeed({ _tag: "HeldByOther", note: stdout.trim() }))
        const detail = stderr.trim() || `exit ${code}`
        resume(
          Effect.fail(
            code === options.unreachableExit
              ? new WorkerUnreachable({ host, detail })
              : new HostOperationFailed({ host, operation: "lock", detail })
          )
        )
      })
      return Effect.sync(() => killGroup(child))
    })
    // Interruptible inside the acquisition, so the timeout can end it (and the canceler kill the program).
    const take = Effect.interruptible(started).pipe(
      Effect.timeoutFail({
        duration: TAKE_TIMEOUT_MS,
        onTimeout: () => new HostCommandTimedOut({ host, command: "flock", timeoutMs: TAKE_TIMEOUT_MS })
      })
    )
    const taken = yield* Effect.acquireRelease(take, (t) =>
      t._tag === "HeldByOther"
        ? Effect.void
        : Effect.async<void>((resume) => {
            // End of input: the program exits and the lock goes with it; a program that hangs is killed.
            if (t.child.exitCode !== null || t.child.signalCode !== null) return resume(Effect.void)
            const timer = setTimeout(() => killGroup(t.child), 5_000)
            t.child.once("close", () => {
              clearTimeout(timer)
              resume(Effect.void)
            })
            t.child.stdin.end()
          })
    )
    if (taken._tag === "HeldByOther") return Option.some(taken.note)
    yield* Effect.forkScoped(
      Deferred.await(lost).pipe(
        Effect.flatMap((detail) =>
          Effect.logError("the lock's holder process ended: this daemon no longer holds the lock").pipe(
            Effect.annotateLogs({ host, detail })
          )
        )
      )
    )
    return Option.none()
  })
