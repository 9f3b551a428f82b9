import { Effect } from "effect"

/** Timed GETs per page, after warm-up ones. */
export const REQUESTS = 100
export const WARMUP = 5

const quantile = (sorted: ReadonlyArray<number>, q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!

/** GETs `path` WARMUP times, then REQUESTS times in a row, timing each answer read to its last byte. */
export const latency = (origin: string, paths: ReadonlyArray<string>, json: boolean) =>
  Effect.promise(async () => {
    const get = async (path: string) => {
      const response = await fetch(`${origin}${path}`, { headers: { accept: json ? "application/json" : "text/html" } })
      const body = await response.text()
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${body.slice(0, 200)}`)
      if (json) JSON.parse(body)
      return body.length
    }
    for (let i = 0; i < WARMUP; i++) await get(paths[i % paths.length]!)
    const times: Array<number> = []
    let bytes = 0
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now()
      bytes += await get(paths[i % paths.length]!)
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    return { median: quantile(times, 0.5), p99: quantile(times, 0.99), kb: bytes / REQUESTS / 1000 }
  })

