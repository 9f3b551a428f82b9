import type { VerifyEntry, VerifyResult } from "../WorkerExecutor/AttemptJournal"
import type { RedactorService } from "@usine/core/text/Redactor"

/** How much of a failed round's output the pull request shows, from its end; the transcript keeps 16 KiB. */
export const BODY_OUTPUT_CHARS = 1_500

/** `text` as inline code, whatever backticks it holds. */
const inlineCode = (text: string): string => {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(longest + 1)
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : ""
  return `${fence}${pad}${text}${pad}${fence}`
}

/** A fenced block that no line of `text` can close early. */
const codeBlock = (text: string): string => {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = "`".repeat(longest + 1)
  return `${fence}text\n${text}\n${fence}`
}

const seconds = (result: VerifyResult): string =>
  result.durationMs === undefined ? "" : ` in ${(result.durationMs / 1000).toFixed(1)} s`

const tail = (output: string): string =>
  output.length <= BODY_OUTPUT_CHARS ? output : `…\n${output.slice(output.length - BODY_OUTPUT_CHARS)}`

const resultLine = (redactor: RedactorService) => (result: VerifyResult): string =>
  result.passed
    ? `- passed${seconds(result)}: ${inlineCode(redactor.redact(result.command))}`
    : `- failed (exit ${result.exitCode ?? "none"})${seconds(result)}: ${inlineCode(redactor.redact(result.command))}`

/**
 * The pull request body's evidence (seed §6.13): which `verify:` commands ran before the push, whether they
 * passed and how long they took, and for each earlier round that failed, the tail of what the failing command
 * printed before the agent fixed it. Everything goes through the redactor again: the body is public.
 */
export const verificationSection = (input: {
  readonly commands: ReadonlyArray<string>
  readonly rounds: ReadonlyArray<VerifyEntry>
  readonly redactor: RedactorService
}): string => {
  const { redactor, rounds } = input
  const heading = "### Verification"
  const last = rounds.at(-1)
  if (input.commands.length === 0) return `${heading}\n\nThe Loop has no \`verify:\` commands: nothing was run before this push.`
  if (last === undefined) return `${heading}\n\nThe Loop's \`verify:\` commands were not run for this Attempt.`
  const earlier = rounds.slice(0, -1)
  const verdict = last.passed
    ? `Every \`verify:\` command passed in round ${last.round}${earlier.length === 0 ? "" : `, after ${earlier.length} failed round${earlier.length === 1 ? "" : "s"} the agent fixed`}.`
    : `The \`verify:\` commands did not all pass in round ${last.round}.`
  const failures = earlier.flatMap((round) =>
    round.results
      .filter((result) => !result.passed)
      .map((result) =>
        [
          `<details><summary>Round ${round.round}: ${redactor.redact(result.command).replace(/[<>&]/g, "")} failed (exit ${result.exitCode ?? "none"})</summary>`,
          "",
          codeBlock(tail(redactor.redact(result.output))),
          "",
          "</details>"
        ].join("\n")
      )
  )
  return [heading, verdict, last.results.map(resultLine(redactor)).join("\n"), ...failures].join("\n\n")
}
