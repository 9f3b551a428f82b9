import { Match } from "effect"
import type { TranscriptEntry, TranscriptKind } from "@usine/core/transcript/TranscriptRow"
import type { JournalEntry, TurnEndEntry } from "./AttemptJournal"

type Rows = ReadonlyArray<TranscriptEntry>

const row = (kind: TranscriptKind, text: string, at: number): TranscriptEntry => ({ kind, text, at })

const turnEnd = (entry: TurnEndEntry): string => {
  if (entry.limit !== undefined) return `agent turn ${entry.turn} ${entry.limit}: ${entry.detail}`
  if (entry.signal !== null) return `agent turn ${entry.turn} ended by ${entry.signal}`
  return `agent turn ${entry.turn} exited with code ${entry.exitCode ?? "unknown"}`
}

/**
 * The transcript rows the executor itself adds for a journal entry. They depend on the entry alone, so a
 * replay produces them again identically, in the same place (ADR 0023).
 */
export const journalRows = (entry: JournalEntry): Rows =>
  Match.valueTags(entry, {
    begin: (e): Rows => [
      row("system", `workspace on ${e.worker} at ${e.startSha.slice(0, 8)} (${e.startRef}); the work goes to ${e.pushBranch}`, e.at)
    ],
    turn: (e): Rows => [
      row("system", e.turn === 1 ? "agent turn 1 started" : `agent turn ${e.turn} started with the verification output`, e.at)
    ],
    turnEnd: (e): Rows => [row(e.limit === undefined && e.exitCode === 0 ? "system" : "error", turnEnd(e), e.at)],
    operator: (e): Rows => [
      row("operator", e.text, e.at),
      ...(e.note === undefined ? [] : [row("system", `operator message ${e.note}`, e.at)])
    ],
    verify: (e): Rows =>
      e.results.map((r) =>
        row(
          "verify",
          `${r.passed ? "pass" : "fail"} (round ${e.round}, exit ${r.exitCode ?? "none"}): ${r.command}${r.output === "" ? "" : `\n${r.output}`}`,
          e.at
        )
      ),
    outcome: (e): Rows => [row(e.outcome._tag === "Succeeded" ? "system" : "error", e.summary, e.at)]
  })
