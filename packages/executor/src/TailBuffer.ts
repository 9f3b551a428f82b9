/**
 * The last `limit` bytes of a byte stream, and how many came before them: what the daemon keeps of anything an
 * agent or a command it runs prints (ADR 0085). Memory stays under `limit` plus one chunk whatever is pushed.
 */
interface TailBuffer {
  /** Adds the next bytes of the stream. */
  readonly push: (chunk: Uint8Array) => void
  /** Bytes pushed and no longer kept. */
  readonly dropped: () => number
  /** The kept bytes, at most `limit`. */
  readonly bytes: () => Uint8Array
  /** The kept bytes as UTF-8, starting at a character boundary when bytes were dropped. */
  readonly text: () => string
}

export const makeTailBuffer = (limit: number): TailBuffer => {
  const chunks: Array<Uint8Array> = []
  let kept = 0
  let dropped = 0
  const trim = () => {
    for (let first = chunks[0]; first !== undefined && kept - first.length >= limit; first = chunks[0]) {
      chunks.shift()
      kept -= first.length
      dropped += first.length
    }
  }
  const bytes = (): Uint8Array => {
    const all = Buffer.concat(chunks)
    const cut = Math.max(0, all.length - limit)
    return all.subarray(cut)
  }
  return {
    push: (chunk) => {
      if (chunk.length === 0) return
      // A chunk larger than the whole tail keeps only its own end: never hold more than one limit of it.
      const part = chunk.length > limit ? Uint8Array.from(chunk.subarray(chunk.length - limit)) : chunk
      dropped += chunk.length - part.length
      chunks.push(part)
      kept += part.length
      trim()
    },
    dropped: () => dropped + Math.max(0, kept - limit),
    bytes,
    text: () => {
      const tail = bytes()
      let start = 0
      if (dropped + Math.max(0, kept - limit) > 0) {
        // Skip continuation bytes of a character split by the cut.
        while (start < tail.length && start < 4 && ((tail[start] ?? 0) & 0xc0) === 0x80) start++
      }
      return Buffer.from(tail.subarray(start)).toString("utf8")
    }
  }
}
