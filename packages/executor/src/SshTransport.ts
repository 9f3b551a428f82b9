import { Effect, type Scope } from "effect"
import { execFile } from "node:child_process"
import { childEnvironment } from "./childEnvironment"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ShellTransport from "./ShellTransport"
import * as SshReverseForward from "./SshReverseForward"
import { runProcess } from "./runProcess"
import { HostOperationFailed, WorkerUnreachable, type WorkerTransportShape } from "./WorkerTransport"

interface SshWorker {
  /** An ssh destination: `host`, `user@host`, or an alias from the user's ssh config. */
  readonly destination: string
  /** Further `ssh` arguments (`-p`, `-i`, `-o UserKnownHostsFile=...`); the user's ssh config applies as well. */
  readonly sshOptions?: ReadonlyArray<string>
  /** How long the shared connection outlives its last use. */
  readonly controlPersistSeconds?: number
}

/** ssh's own exit status for a failed connection, a refused key or a changed host key. */
const SSH_FAILED = 255

/**
 * A Worker reached with the system OpenSSH client (ADR 0015): the user's config, agent and known_hosts, one
 * multiplexed connection per Worker, and `StrictHostKeyChecking=yes` so a changed or unknown host key fails closed.
 * A failed connection is `WorkerUnreachable`, never an agent failure, and never falls back to local execution.
 * The scope's end closes the shared connection. Its reverse forwards (an Attempt's model proxy, ADR 0097) each have a
 * connection of their own.
 */
export const make = (worker: SshWorker): Effect.Effect<WorkerTransportShape, HostOperationFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const host = worker.destination
    // Socket paths are limited to about 100 bytes: a short private folder, not the Worker root.
    const controlDir = yield* Effect.acquireRelease(
      Effect.try({
        try: () => fs.mkdtempSync(path.join(os.tmpdir(), "usine-ssh-")),
        catch: (cause) => new HostOperationFailed({ host, operation: "create control folder", detail: String(cause) })
      }),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const base = [
      "-o", "BatchMode=yes",
      "-o", "StrictHostKeyChecking=yes",
      "-o", "ControlMaster=auto",
      "-o", `ControlPath=${path.join(controlDir, "%C")}`,
      "-o", `ControlPersist=${worker.controlPersistSeconds ?? 300}`,
      "-o", "ServerAliveInterval=15",
      ...(worker.sshOptions ?? [])
    ]
    yield* Effect.addFinalizer(() =>
      Effect.async<void>((resume) => {
        execFile("ssh", [...base, "-O", "exit", host], { env: childEnvironment() }, () => resume(Effect.void))
      })
    )
    const shell = ShellTransport.make({
      host,
      run: (script, options) =>
        runProcess(host, {
          argv: ["ssh", ...base, host, "sh -s"],
          stdin: script,
          timeoutMs: options?.timeoutMs,
          maxOutputBytes: options?.maxOutputBytes
        }).pipe(
          Effect.flatMap((result) =>
            result.exitCode === SSH_FAILED
              ? Effect.fail(new WorkerUnreachable({ host, detail: result.stderr.trim() || "ssh exited with 255" }))
              : Effect.succeed(result)
          )
        ),
      argvFor: (commandLine) => ["ssh", ...base, host, commandLine],
      unreachableExit: SSH_FAILED
    })
    return { ...shell, reverseForward: SshReverseForward.make(worker) }
  })
