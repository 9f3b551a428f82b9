import { AgentFailure, type AttemptFailure, InfraFailure } from "@usine/core/attempt/failure"
import type { StreamParser } from "./Harness"

/**
 * The exit mapping every harness shares: what the stream said wins (a rate limit, a failed turn); a process
 * killed by a signal failed for reasons outside the agent (the machine, the OOM killer, a stop); any other
 * non-zero exit is the agent's failure, with the last error it printed as evidence.
 */
export const processExitFailure = (
  exitCode: number | null,
  signal: string | null,
  stream: StreamParser
): AttemptFailure | undefined => {
  const fromStream = stream.failure()
  if (fromStream !== undefined) return fromStream
  const evidence = stream.lastError?.() ?? ""
  if (signal !== null) return new InfraFailure({ reason: `the agent's process was killed by ${signal}`, evidence })
  if (exitCode === null) return new InfraFailure({ reason: "the agent's process ended without an exit status", evidence })
  if (exitCode === 0) return undefined
  return new AgentFailure({ reason: `the agent's CLI exited with code ${exitCode}`, evidence })
}
