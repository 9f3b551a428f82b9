import { AgentFailure, type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import { truncate } from "./truncate"

const RATE_LIMITED = /\b429\b|rate[ _-]?limit|too many requests|usage limit|quota|exceeded retry limit/i
const UNAUTHENTICATED = /\b40[13]\b|unauthori[sz]ed|forbidden|invalid[ _-](?:x-)?api[ _-]key|authenticat|not logged in|please (?:run )?\/?login/i
const UNAVAILABLE = /\b(?:500|502|503|504|529)\b|overloaded|internal server error|bad gateway|service unavailable|gateway time-?out/i
const UNREACHABLE = /network|connection ?(?:failed|refused|reset|error)|unable to connect|econnrefused|econnreset|etimedout|enotfound|eai_again|timed out|stream disconnected|socket hang up|fetch failed/i

/**
 * Classifies an error a CLI reported about its model provider. Rate limits, outages and network trouble are
 * `InfraFailure`s, retried by the engine; a CLI that cannot authenticate is an `AgentFailure`, because
 * retrying cannot log it in (the Run waits for the operator); anything else is the agent's own failure.
 */
export const providerFailure = (message: string, at: number): AttemptFailure => {
  const evidence = truncate(message, 4096)
  if (RATE_LIMITED.test(message)) {
    const resetAt = retryAt(message, at)
    return new InfraFailure({
      reason: "the model provider is rate limiting the agent",
      evidence,
      ...(resetAt === undefined ? {} : { retryAt: resetAt })
    })
  }
  if (UNAUTHENTICATED.test(message)) {
    return new AgentFailure({ reason: "the agent's CLI could not authenticate with its model provider", evidence })
  }
  if (UNAVAILABLE.test(message)) return new InfraFailure({ reason: "the model provider is unavailable", evidence })
  if (UNREACHABLE.test(message)) return new InfraFailure({ reason: "the model provider is unreachable", evidence })
  return new AgentFailure({ reason: "the agent reported an error", evidence })
}

const UNIT_MS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^(?:ms|milli)/i, 1],
  [/^h/i, 3_600_000],
  [/^m/i, 60_000],
  [/^s/i, 1_000]
]

/** When a provider says it will accept work again, as epoch milliseconds, if the message says so. */
export const retryAt = (fullMessage: string, at: number): number | undefined => {
  const message = fullMessage.slice(0, 4096)
  const epoch = /limit reached\|(\d{10,13})\b/i.exec(message)
  if (epoch?.[1] !== undefined) {
    const value = Number(epoch[1])
    return epoch[1].length <= 10 ? value * 1000 : value
  }
  const iso = /resets? (?:at |on )?(\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)/i.exec(message)
  if (iso?.[1] !== undefined) {
    const parsed = Date.parse(iso[1])
    if (Number.isFinite(parsed)) return parsed
  }
  const spoken = /(?:try again|retry) (?:in|after) ((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(message)
  if (spoken?.[1] !== undefined) {
    let total = 0
    for (const [, amount, unit] of spoken[1].matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
      const ms = UNIT_MS.find(([pattern]) => pattern.test(unit ?? ""))?.[1]
      if (ms !== undefined) total += Number(amount) * ms
    }
    if (total > 0) return at + Math.round(total)
  }
  const header = /retry-after:?\s*(\d+)/i.exec(message)
  if (header?.[1] !== undefined) return at + Number(header[1]) * 1000
  return undefined
}
