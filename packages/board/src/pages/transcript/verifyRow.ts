/** A `verify` row as the executor writes it: `pass (round 1, exit 0): npm test` and the command's output below. */
interface VerifyResult {
  readonly passed: boolean
  readonly round: string
  readonly exit: string
  readonly command: string
  readonly output: string
}

const VERIFY = /^(pass|fail) \(round (\d+), exit ([^)]*)\): ([^\n]*)(?:\n([\s\S]*))?$/

/** Reads a verification row; undefined when its text has another shape. */
export const verifyResult = (text: string): VerifyResult | undefined => {
  const m = VERIFY.exec(text)
  if (m === null) return undefined
  return { passed: m[1] === "pass", round: m[2] ?? "", exit: m[3] ?? "", command: m[4] ?? "", output: m[5] ?? "" }
}

/** A judge's verdict row, `judge <name>: pass|feedback` and its reasoning (runJudge's `verdictRows`). */
interface JudgeVerdictRow {
  readonly judge: string
  readonly verdict: "pass" | "feedback"
  readonly reasoning: string
}

const JUDGE = /^judge ([^\n:]+): (pass|feedback)(?:\n([\s\S]*))?$/

export const judgeVerdictRow = (text: string): JudgeVerdictRow | undefined => {
  const m = JUDGE.exec(text)
  if (m === null) return undefined
  return { judge: m[1] ?? "", verdict: m[2] === "pass" ? "pass" : "feedback", reasoning: m[3] ?? "" }
}

/** How a tool result ended: `error: …` (the parsers' prefix) or `[exit code N]` (Codex's shell suffix). */
export const resultFailure = (text: string): string | undefined => {
  if (text.startsWith("error: ")) return "error"
  const exit = /\n\[exit code (-?\d+)\]$/.exec(text)
  return exit === null ? undefined : `exit ${exit[1]}`
}
