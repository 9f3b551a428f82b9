/** A streamed answer as the frames written to the socket; a cut turn writes only the first `cutAt`. */
export interface WireStream {
  readonly frames: ReadonlyArray<string>
  /** How many frames go out before a `cut` fault drops the connection: the answer has started, not completed. */
  readonly cutAt: number
}
