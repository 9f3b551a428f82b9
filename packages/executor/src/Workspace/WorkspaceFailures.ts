import { Data } from "effect"

/** A workspace path would leave the Worker's root, or an id cannot name a folder safely. */
export class UnsafeWorkspacePath extends Data.TaggedError("UnsafeWorkspacePath")<{
  readonly path: string
  readonly reason: string
}> {
  override get message() {
    return `refused workspace path ${JSON.stringify(this.path)}: ${this.reason}`
  }
}

/** The Attempt already has a folder: a second acquisition would share another session's worktree. */
export class WorkspaceExists extends Data.TaggedError("WorkspaceExists")<{
  readonly attemptId: string
  readonly path: string
}> {
  override get message() {
    return `attempt ${this.attemptId} already has a workspace at ${this.path}`
  }
}

/** A git command on the Worker failed; `stderr` says why (an unknown ref, a refused credential). */
export class GitCommandFailed extends Data.TaggedError("GitCommandFailed")<{
  readonly command: string
  readonly exitCode: number
  readonly stderr: string
  /** Bytes of output past what usine reads: the command's answer was too large to take (ADR 0085). */
  readonly outputDropped?: number
  /** The step of a script of git commands (`runGitScript`) that failed: which command `command` is. */
  readonly step?: string
}> {
  override get message() {
    return `${this.command} exited with ${this.exitCode}: ${this.stderr.trim().split("\n").slice(-3).join(" / ")}`
  }
}
