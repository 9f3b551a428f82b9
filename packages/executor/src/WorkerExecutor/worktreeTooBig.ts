import { Effect } from "effect"
import { AgentFailure } from "@usine/core/attempt/failure"
import { formatBytes } from "@usine/core/config/ByteSize"
import type { TransportError } from "../WorkerTransport"
import type { AttemptContext } from "./AttemptContext"

/**
 * The worktree's disk use against the Worker's `limits.disk`, before anything of it is harvested (ADR 0084): the
 * blocks its files take on their own filesystem, links not followed. Too big is the agent's doing, an AgentFailure
 * saying how big; `undefined` when it fits, or on a Worker without a sandbox (which has no limits).
 */
export const worktreeTooBig = Effect.fn("WorkerExecutor.worktreeTooBig")(function* (
  ctx: AttemptContext
): Effect.fn.Return<AgentFailure | undefined, TransportError> {
  if (ctx.worker.sandbox() === "none") return undefined
  const limit = ctx.worker.confinement().limits.disk
  const measured = yield* ctx.worker.transport.exec({ argv: ["du", "-s", "-x", "-P", "-B1", "--", ctx.worktree], timeoutMs: 300_000 })
  const bytes = Number(/^(\d+)/.exec(measured.stdout)?.[1] ?? NaN)
  if (!Number.isFinite(bytes)) {
    return new AgentFailure({
      reason: "the worktree's size could not be measured before harvest",
      evidence: `du exited ${measured.exitCode}: ${measured.stderr.slice(0, 500)}`
    })
  }
  return bytes <= limit
    ? undefined
    : new AgentFailure({
        reason: `the worktree takes ${formatBytes(bytes)}, more than the Worker's disk limit of ${formatBytes(limit)}: nothing was harvested`,
        evidence: `du -s ${ctx.worktree}: ${bytes} bytes; limit ${limit} bytes (workers.${ctx.worker.name}.limits.disk)`
      })
})
