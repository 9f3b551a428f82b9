import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"

/**
 * A transcript as the page shows it: each tool call with the result that answered it, every other row on its own.
 * `settled`: a call that will get no result (see `ONE_SHOT`).
 */
type TranscriptItem =
  | { readonly _tag: "Call"; readonly call: TranscriptLine; readonly result?: TranscriptLine | undefined; readonly settled?: boolean }
  | { readonly _tag: "Row"; readonly line: TranscriptLine }

/**
 * Tools whose call row is written once the call is done, with a result row right after it only when it failed:
 * Codex's `apply_patch` (codexToolRows). Such a call waits for the next row only.
 */
const ONE_SHOT: ReadonlySet<string> = new Set(["apply_patch"])

/** Whether `result` can answer `call`: the same tool, or a result that does not name its tool. */
const answers = (call: TranscriptLine, result: TranscriptLine): boolean =>
  result.tool === undefined || call.tool === result.tool

/**
 * Pairs each tool result with the oldest unanswered call of its tool. The rows carry no call id (the parsers keep it
 * to themselves), and every harness reports a tool's calls and results in order, so first in, first answered. The
 * live script (boardScript's `place`) pairs rows the same way as they arrive.
 */
export const transcriptItems = (lines: ReadonlyArray<TranscriptLine>): ReadonlyArray<TranscriptItem> => {
  const items: Array<TranscriptItem> = []
  let open: Array<{ readonly index: number; readonly call: TranscriptLine }> = []
  for (const line of lines) {
    const waiting = line.kind === "tool_result" ? open.findIndex((o) => answers(o.call, line)) : -1
    const found = open[waiting]
    if (found !== undefined) {
      open.splice(waiting, 1)
      items[found.index] = { _tag: "Call", call: found.call, result: line }
    }
    // A one-shot call is done once any row follows it.
    for (const o of open) if (ONE_SHOT.has(o.call.tool ?? "")) items[o.index] = { _tag: "Call", call: o.call, settled: true }
    open = open.filter((o) => !ONE_SHOT.has(o.call.tool ?? ""))
    if (found !== undefined) continue
    if (line.kind === "tool_call") open.push({ index: items.length, call: line })
    items.push(line.kind === "tool_call" ? { _tag: "Call", call: line } : { _tag: "Row", line })
  }
  return items
}
