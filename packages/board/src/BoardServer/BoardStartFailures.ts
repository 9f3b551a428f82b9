import { Data } from "effect"

/** The Board would listen where other machines reach it, and no token guards it: it refuses to start. */
export class BoardTokenMissing extends Data.TaggedError("BoardTokenMissing")<{ readonly host: string }> {
  override get message() {
    return `the board listens on ${this.host}, which other machines can reach: set board.token or board.auth, or listen on 127.0.0.1`
  }
}

/** The listen address is taken or not ours. */
export class BoardListenFailed extends Data.TaggedError("BoardListenFailed")<{
  readonly host: string
  readonly port: number
  readonly cause: unknown
}> {
  override get message() {
    return `the board cannot listen on ${this.host}:${this.port}: ${String(this.cause)}`
  }
}
