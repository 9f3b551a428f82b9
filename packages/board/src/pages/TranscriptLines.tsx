import type { FC } from "hono/jsx"
import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"

/** A tool call or its result folds under its tool name; every other row is its text. All text is escaped. */
export const TranscriptRow: FC<{ line: TranscriptLine }> = ({ line }) => {
  const folded = line.kind === "tool_call" || line.kind === "tool_result"
  return (
    <li class={`row ${line.kind}`} data-testid="transcript-row" data-seq={String(line.seq)} data-kind={line.kind}>
      {folded
        ? (
          <details>
            <summary>{`${line.kind === "tool_call" ? "▶" : "◀"} ${line.tool ?? "tool"}`}</summary>
            <pre data-testid="transcript-text">{line.text}</pre>
          </details>
        )
        : <pre data-testid="transcript-text">{line.text}</pre>}
    </li>
  )
}

export const TranscriptLines: FC<{ lines: ReadonlyArray<TranscriptLine> }> = ({ lines }) => (
  <ol class="transcript">
    {lines.map((line) => <TranscriptRow line={line} />)}
  </ol>
)
