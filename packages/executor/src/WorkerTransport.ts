import { Context, Data, type Effect, type Option, type Scope } from "effect"
import type { ProcStat } from "./ProcStat"
import type { OpenReverseForward } from "./ReverseForward"

/** The most of each output of a command the daemon keeps, from its end, when the command does not say (ADR 0085). */
export const EXEC_OUTPUT_BYTES = 16 * 1024 * 1024

/** A command run to completion on the Worker's host. */
export interface HostCommand {
  readonly argv: ReadonlyArray<string>
  readonly cwd?: string
  /** Added to the host's own environment (usine's tooling, such as git); never secrets, use files for those. */
  readonly env?: Readonly<Record<string, string>>
  readonly stdin?: string
  readonly timeoutMs?: number
  /** The most of stdout, and of stderr, kept (their last bytes); `EXEC_OUTPUT_BYTES` when absent. */
  readonly maxOutputBytes?: number
}

export interface HostCommandResult {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
  /** Bytes printed beyond `maxOutputBytes` and not kept; absent or 0 when everything was kept. */
  readonly outputDropped?: number
}

/** A process started in its own session and process group, stdio on /dev/null, that outlives the daemon. */
export interface DetachedCommand {
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  /** The whole environment of the process. */
  readonly env: Readonly<Record<string, string>>
}

/** The Worker's host could not be reached (SSH connection, host key); the work itself did not fail. */
export class WorkerUnreachable extends Data.TaggedError("WorkerUnreachable")<{
  readonly host: string
  readonly detail: string
}> {
  override get message() {
    return `worker ${this.host} is unreachable: ${this.detail}`
  }
}

/** An operation on the host's files or processes failed. */
export class HostOperationFailed extends Data.TaggedError("HostOperationFailed")<{
  readonly host: string
  readonly operation: string
  readonly detail: string
}> {
  override get message() {
    return `${this.operation} failed on ${this.host}: ${this.detail}`
  }
}

/** A command ran past its timeout and was killed with its process group. */
export class HostCommandTimedOut extends Data.TaggedError("HostCommandTimedOut")<{
  readonly host: string
  readonly command: string
  readonly timeoutMs: number
}> {
  override get message() {
    return `${this.command} on ${this.host} ran past ${this.timeoutMs} ms`
  }
}

export type TransportError = WorkerUnreachable | HostOperationFailed | HostCommandTimedOut

/**
 * What a Worker does to its host. Every operation is expressible as a POSIX shell command on a Linux host,
 * so the same contract holds for the local machine and for a host behind `ssh` (ADR 0015).
 */
export interface WorkerTransportShape {
  /** The host's name, recorded in session handles so a reattach goes to the right machine. */
  readonly host: string
  /** Runs a command to completion; a non-zero exit is a result, not an error. Interruption kills its group. */
  readonly exec: (command: HostCommand) => Effect.Effect<HostCommandResult, TransportError>
  /** Starts a process in a new session and process group, detached from the daemon; returns its pid (= pgid). */
  readonly spawnDetached: (command: DetachedCommand) => Effect.Effect<ProcStat, TransportError>
  /** Reads at most `maxBytes` of a file from byte `offset`; `None` when the file does not exist. */
  readonly readFile: (
    path: string,
    options?: { readonly offset?: number; readonly maxBytes?: number }
  ) => Effect.Effect<Option.Option<Uint8Array>, TransportError>
  /** Replaces a file atomically (write a sibling, then rename), creating missing parent folders. */
  readonly writeFile: (
    path: string,
    content: string | Uint8Array,
    options?: { readonly mode?: number }
  ) => Effect.Effect<void, TransportError>
  /** Appends to a file or a FIFO without blocking on a FIFO nobody reads; `false` when there is no reader. */
  readonly appendFile: (path: string, content: string) => Effect.Effect<boolean, TransportError>
  /** Creates a FIFO (named pipe) readable only by the owner. */
  readonly makeFifo: (path: string) => Effect.Effect<void, TransportError>
  /** Creates a folder and its parents. */
  readonly makeDirectory: (path: string) => Effect.Effect<void, TransportError>
  /** Removes a file or a folder tree; absent is fine. Symbolic links are removed, never followed. */
  readonly remove: (path: string) => Effect.Effect<void, TransportError>
  /** Names in a folder, sorted; empty when the folder does not exist. */
  readonly listDirectory: (path: string) => Effect.Effect<ReadonlyArray<string>, TransportError>
  /** The canonical absolute path with every symbolic link resolved; missing trailing parts are kept as given. */
  readonly realPath: (path: string) => Effect.Effect<string, TransportError>
  /** One process's `/proc/<pid>/stat`, or `None` when there is no such process. */
  readonly processInfo: (pid: number) => Effect.Effect<Option.Option<ProcStat>, TransportError>
  /** Every process whose process group is `pgid`, zombies included (callers filter on `state`). */
  readonly groupMembers: (pgid: number) => Effect.Effect<ReadonlyArray<ProcStat>, TransportError>
  /** Sends a signal to a whole process group; `false` when the group does not exist. */
  readonly signalGroup: (pgid: number, signal: "SIGTERM" | "SIGKILL") => Effect.Effect<boolean, TransportError>
  /**
   * Holds an exclusive `flock` on a file for the scope, from a host process whose stdin is a pipe from this one, so
   * the lock ends with the daemon (or its connection). Writes `note` into the file once held. `None` once held;
   * `Some` with the note of the process that holds it already.
   */
  readonly lockFile: (path: string, note: string) => Effect.Effect<Option.Option<string>, TransportError, Scope.Scope>
  /**
   * Makes a port of the daemon's loopback reachable on the host's loopback (ADR 0097); absent when the host is the
   * daemon's own, whose loopback is the daemon's.
   */
  readonly reverseForward?: OpenReverseForward
}

/** The transport of the Worker in context; an executor with several Workers keeps one per Worker. */
export class WorkerTransport extends Context.Tag("usine/WorkerTransport")<WorkerTransport, WorkerTransportShape>() {}
