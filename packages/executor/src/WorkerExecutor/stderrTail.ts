import { Effect } from "effect"
import { type AttemptFailure, withEvidence } from "@usine/core/attempt/failure"
import { sessionFiles } from "../DurableSession/sessionFiles"
import type { AttemptContext } from "./AttemptContext"

/** How much of the agent's stderr a failure carries: its last lines, read from at most its last bytes. */
export const STDERR_TAIL_LINES = 20
const STDERR_TAIL_BYTES = 4096

/**
 * Reads the end of the stderr file the session wrapper wrote in a turn's folder: the agent's own words on why it
 * stopped (a provider that hung up, a missing key, a crash) are there more often than on stdout. Only a regular
 * file is read, never a link; nothing when it is empty, missing or the Worker cannot be reached.
 */
const stderrTail = (ctx: AttemptContext, dir: string) =>
  ctx.worker.transport
    .exec({
      argv: ["sh", "-c", `test -f "$1" && test ! -L "$1" && exec tail -c ${STDERR_TAIL_BYTES} -- "$1"`, "sh", sessionFiles(dir).stderr],
      timeoutMs: 30_000
    })
    .pipe(
      Effect.map((result) => {
        if (result.exitCode !== 0) return ""
        const lines = result.stdout.split("\n").map((line) => line.trimEnd())
        // A tail that starts mid-line drops the broken first line.
        const whole = result.stdout.length >= STDERR_TAIL_BYTES ? lines.slice(1) : lines
        return whole.filter((line) => line.trim() !== "").slice(-STDERR_TAIL_LINES).join("\n")
      }),
      Effect.orElseSucceed(() => "")
    )

/**
 * A turn's failure as the ledger keeps it: its own evidence (the stream's last error or output), then the tail of
 * the agent's stderr, all of it redacted, since both are the agent's words; a turn that ended well stays so.
 */
export const withStderrTail = (ctx: AttemptContext, dir: string, failure: AttemptFailure | undefined) =>
  failure === undefined
    ? Effect.succeed(undefined)
    : Effect.map(stderrTail(ctx, dir), (tail) => {
      const evidence = ctx.settings.redactor.redact([failure.evidence, tail === "" ? "" : `stderr:\n${tail}`].filter((part) => part !== "").join("\n\n"))
      return evidence === failure.evidence ? failure : withEvidence(failure, evidence)
    })
