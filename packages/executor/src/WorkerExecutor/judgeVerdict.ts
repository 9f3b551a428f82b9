/** The judge's answer (ADR 0063): its last non-empty line `VERDICT: pass` or `VERDICT: feedback`, its reasoning above. */
export interface JudgeVerdict {
  readonly verdict: "pass" | "feedback"
  readonly reasoning: string
}

const VERDICT_LINE = /^\s*VERDICT:\s*(pass|feedback)\s*$/i

/** Reads the judge's output; an answer without a verdict line counts as feedback, with what it said. */
export const parseVerdict = (output: string): JudgeVerdict => {
  const lines = output.split("\n").map((line) => line.trimEnd())
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === "") lines.pop()
  const last = lines[lines.length - 1] ?? ""
  const matched = VERDICT_LINE.exec(last)
  if (matched === null) {
    const said = lines.join("\n").trim()
    return { verdict: "feedback", reasoning: said === "" ? "the judge gave no verdict" : `the judge gave no verdict line; it said:\n${said}` }
  }
  return { verdict: matched[1]?.toLowerCase() === "pass" ? "pass" : "feedback", reasoning: lines.slice(0, -1).join("\n").trim() }
}

/** What the judge is asked: the task, the diff and the verify output, and the answer format. */
export const judgePrompt = (input: { readonly task: string; readonly diff: string; readonly verify: string }): string =>
  [
    "You review a coding agent's change before it becomes a pull request. Do not change any file.",
    "## The task the agent was given",
    input.task,
    "## The change (unified diff)",
    input.diff === "" ? "(no change)" : input.diff,
    "## Verification output",
    input.verify === "" ? "(no verify commands)" : input.verify,
    "## Your answer",
    "Explain briefly what is missing or wrong, if anything; the agent reads it. End with one line, exactly",
    "`VERDICT: pass` when the change does the task, or `VERDICT: feedback` when the agent must work on it."
  ].join("\n\n")

/** The agent's next prompt after the judge asked for more, as a failed verify round's feedback is. */
export const judgeFeedback = (verdict: JudgeVerdict): string =>
  `A reviewer read your change and asks for more work before it goes out:\n\n${verdict.reasoning}\n\nChange the worktree accordingly.`
