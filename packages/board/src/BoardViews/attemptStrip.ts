import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"
import type { AttemptView } from "./runView"

/** A stretch of an Attempt: preparing its workspace, the agent's turn, verification, then harvest and push. */
export interface AttemptPhase {
  readonly name: "setup" | "agent" | "verify" | "harvest"
  readonly from: number
  readonly to: number
}

/** One Attempt on the Run page's strip: from its start to its end (or its newest known row while open). */
export interface StripBar {
  readonly number: number
  readonly outcome: AttemptView["outcome"]
  readonly from: number
  readonly to: number
  /** Known for the shown Attempt only: read from its transcript's journal rows. */
  readonly phases: ReadonlyArray<AttemptPhase>
}

const TURN_STARTED = /^agent turn \d+ started/
const TURN_ENDED = /^agent turn \d+ (?!started)/

/**
 * The phases of an Attempt from the rows the executor writes for its journal (journalRows): a turn's start begins
 * the agent's phase, its end begins verification (harvest when no verification row follows), and the last
 * verification row of a round begins harvest, which lasts until the Attempt ends or the next turn starts. Without turn rows (a command harness) the phases are unknown: none.
 */
export const attemptPhases = (startedAt: number, end: number, lines: ReadonlyArray<TranscriptLine>): ReadonlyArray<AttemptPhase> => {
  const marks: Array<{ readonly name: AttemptPhase["name"]; readonly at: number }> = [{ name: "setup", at: startedAt }]
  const started = (line: TranscriptLine | undefined) => line?.kind === "system" && TURN_STARTED.test(line.text)
  /** Whether a verification row follows before the next turn: without `verify` commands the turn's end is harvest. */
  const verifiedAfter = (i: number) => {
    for (let j = i + 1; j < lines.length && !started(lines[j]); j++) if (lines[j]?.kind === "verify") return true
    return false
  }
  lines.forEach((line, i) => {
    if (started(line)) marks.push({ name: "agent", at: line.at })
    else if ((line.kind === "system" || line.kind === "error") && TURN_ENDED.test(line.text)) {
      marks.push({ name: verifiedAfter(i) ? "verify" : "harvest", at: line.at })
    } else if (line.kind === "verify" && lines[i + 1]?.kind !== "verify") marks.push({ name: "harvest", at: line.at })
  })
  if (!marks.some((m) => m.name === "agent")) return []
  const phases: Array<AttemptPhase> = []
  marks.forEach((mark, i) => {
    const to = Math.min(end, Math.max(mark.at, marks[i + 1]?.at ?? end))
    const last = phases.at(-1)
    if (last?.name === mark.name) phases[phases.length - 1] = { ...last, to }
    else if (to > mark.at) phases.push({ name: mark.name, from: Math.max(mark.at, startedAt), to })
  })
  return phases
}

/** Every Attempt of the Run as a bar, the shown one with its phases. */
export const attemptStrip = (
  attempts: ReadonlyArray<AttemptView>,
  shown: { readonly attemptId?: string | undefined; readonly lines: ReadonlyArray<TranscriptLine> }
): ReadonlyArray<StripBar> => {
  const newest = Math.max(0, ...attempts.map((a) => a.endedAt ?? a.startedAt), ...shown.lines.map((l) => l.at))
  return attempts.map((a) => {
    const to = Math.max(a.startedAt, a.endedAt ?? newest)
    return {
      number: a.number,
      outcome: a.outcome,
      from: a.startedAt,
      to,
      phases: a.id === shown.attemptId ? attemptPhases(a.startedAt, to, shown.lines) : []
    }
  })
}
