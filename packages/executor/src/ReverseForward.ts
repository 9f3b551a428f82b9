import { Data, type Effect, type Scope } from "effect"

/** A port on the daemon's loopback made reachable on a Worker host's loopback, for as long as its scope lasts. */
export interface ReverseForward {
  /** The port on the host's loopback that reaches the daemon's. */
  readonly remotePort: number
  /** Completes, saying why, when the forward ends before its scope does (its ssh connection closed). */
  readonly closed: Effect.Effect<string>
}

/** The host did not listen for the daemon: its port is taken, its sshd refuses forwarding, or it cannot be reached. */
export class ReverseForwardFailed extends Data.TaggedError("ReverseForwardFailed")<{
  readonly host: string
  /** The port asked for; `undefined`: any free one. */
  readonly remotePort: number | undefined
  readonly detail: string
}> {
  override get message() {
    const where = this.remotePort === undefined ? "a port of its loopback" : `127.0.0.1:${this.remotePort}`
    return `${this.host} could not listen on ${where} for the daemon: ${this.detail}`
  }
}

/**
 * Opens a forward from the host's loopback to `port` on the daemon's: at `remotePort` when given (a reattach asks
 * for the port its running CLI points at), else at a free one.
 */
export type OpenReverseForward = (request: {
  readonly port: number
  readonly remotePort?: number | undefined
}) => Effect.Effect<ReverseForward, ReverseForwardFailed, Scope.Scope>
