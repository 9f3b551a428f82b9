import { Effect } from "effect"
import { InfraFailure } from "@usine/core/attempt/failure"
import * as path from "node:path/posix"
import { runVerifyRound, verifyEvidence } from "../Verify"
import type { AttemptContext } from "./AttemptContext"
import { verifySandbox } from "./attemptSandbox"

const DEFAULT_SETUP_MINUTES = 10

/**
 * The Loop's `setup:` commands in the fresh worktree, before the agent's first turn: run as `verify` is (the same
 * clean environment, sandbox and Loop hosts, in a folder of their own), each within `setup_minutes`. A failure is
 * the infrastructure's, not the agent's: `SetupFailed`, with the failed command's output tail, retried like any
 * other InfraFailure. Undefined when every command passed, or there are none.
 */
export const runSetup = Effect.fn("WorkerExecutor.setup")(function* (ctx: AttemptContext) {
  const { policy } = ctx.request
  const commands = policy.setup ?? []
  if (commands.length === 0) return undefined
  const sandbox = verifySandbox(ctx, 0)
  const entry = yield* runVerifyRound(
    {
      transport: ctx.worker.transport,
      worktree: ctx.worktree,
      commands,
      timeoutMs: (policy.setupMinutes ?? DEFAULT_SETUP_MINUTES) * 60_000,
      redactor: ctx.settings.redactor,
      daemonEnv: ctx.settings.daemonEnv,
      sandbox: sandbox === undefined ? undefined : { ...sandbox, dir: path.join(ctx.attemptDir, "setup") },
      outputBytes: policy.output?.verifyBytes
    },
    0
  )
  if (entry.passed) return undefined
  const failedCommand = entry.results.find((result) => !result.passed)
  return new InfraFailure({
    kind: "SetupFailed",
    reason: `setup command \`${failedCommand?.command ?? ""}\` failed (exit ${failedCommand?.exitCode ?? "none: timed out"})`,
    evidence: verifyEvidence(entry)
  })
})
