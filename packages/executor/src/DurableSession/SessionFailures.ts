import { Data } from "effect"

/** No new line for longer than the Loop's `stall_minutes` allows. */
export class SessionStalled extends Data.TaggedError("SessionStalled")<{
  readonly attemptDir: string
  readonly silentMs: number
}> {
  override get message() {
    return `no output for ${Math.round(this.silentMs / 1000)} s`
  }
}

/** The session ran longer than `max_attempt_minutes`. */
export class SessionRanAway extends Data.TaggedError("SessionRanAway")<{
  readonly attemptDir: string
  readonly runningMs: number
  readonly limitMs: number
}> {
  override get message() {
    return `still running after ${Math.round(this.runningMs / 60_000)} minutes`
  }
}

/** The session's process is gone without writing its exit status (killed, host rebooted). */
export class SessionVanished extends Data.TaggedError("SessionVanished")<{
  readonly attemptDir: string
}> {
  override get message() {
    return `the agent session in ${this.attemptDir} ended without an exit status`
  }
}

/** A session cannot start: its folder already holds one, or its input is unusable. */
export class SessionNotStarted extends Data.TaggedError("SessionNotStarted")<{
  readonly attemptDir: string
  readonly reason: string
}> {
  override get message() {
    return `cannot start the session in ${this.attemptDir}: ${this.reason}`
  }
}

/** Processes of the group still ran after SIGKILL (uninterruptible sleep, another user's process). */
export class SessionSurvivedKill extends Data.TaggedError("SessionSurvivedKill")<{
  readonly pgid: number
  readonly pids: ReadonlyArray<number>
}> {
  override get message() {
    return `process group ${this.pgid} still has ${this.pids.join(", ")} after SIGKILL`
  }
}
