import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"

/** A transcript as the page shows it: each tool call with the result that answered it, every other row on its own. */
export type TranscriptItem =
  | { readonly _tag: "Call"; readonly call: TranscriptLine; readonly result?: TranscriptLine | undefined }
  | { readonly _tag: "Row"; readonly line: TranscriptLine }

/** Whether `result` can answer `call`: the same tool, or a result that does not name its tool. */
export const answers = (call: TranscriptLine, result: TranscriptLine): boolean =>
  result.tool === undefined || call.tool === result.tool

/**
 * Pairs each tool result with the oldest unanswered call of its tool. The rows carry no call id (the parsers keep it
 * to themselves), and every harness reports a tool's calls and results in order, so first in, first answered. The
 * live script pairs rows the same way as they arrive.
 */
export const transcriptItems = (lines: ReadonlyArray<TranscriptLine>): ReadonlyArray<TranscriptItem> => {
  const items: Array<TranscriptItem> = []
  const open: Array<{ readonly index: number; readonly call: TranscriptLine }> = []
  for (const line of lines) {
    if (line.kind === "tool_call") {
      open.push({ index: items.length, call: line })
      items.push({ _tag: "Call", call: line })
      continue
    }
    const waiting = line.kind === "tool_result" ? open.findIndex((o) => answers(o.call, line)) : -1
    const found = open[waiting]
    if (found === undefined) {
      items.push({ _tag: "Row", line })
      continue
    }
    open.splice(waiting, 1)
    items[found.index] = { _tag: "Call", call: found.call, result: line }
  }
  return items
}
