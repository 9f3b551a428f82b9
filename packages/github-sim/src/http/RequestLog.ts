/** One request the emulator answered. */
export interface LoggedRequest {
  readonly method: string
  /** Path with its query string. */
  readonly path: string
  readonly status: number
  /** The request carried `If-None-Match`. */
  readonly conditional: boolean
  /** The request was charged to the caller's rate limit. */
  readonly counted: boolean
  readonly login: string | null
  /** When it was answered, to the second, as GitHub stamps things. */
  readonly at: string
  /** When it arrived, in epoch milliseconds on the emulator's clock: what a wait window is checked against. */
  readonly receivedAtMs: number
}

/** Every API and git request, in arrival order, for tests and the demo to inspect. */
export class RequestLog {
  private entries: Array<LoggedRequest> = []

  record(entry: LoggedRequest): void {
    this.entries.push(entry)
  }

  list(): ReadonlyArray<LoggedRequest> {
    return [...this.entries]
  }

  clear(): void {
    this.entries = []
  }
}
