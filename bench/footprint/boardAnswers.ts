import { Effect } from "effect"

/** Polls the Board's front page every 20 ms until it answers (any status below 500); the time it first did. */
export const boardAnswers = (port: number, timeoutMs = 120_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) })
        await response.arrayBuffer()
        if (response.status < 500) return Date.now()
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`the Board on port ${port} never answered`)
  })
