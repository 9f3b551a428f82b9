import type { FC } from "hono/jsx"
import { raw } from "hono/html"
import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"
import { agentMarkdown } from "./transcript/agentMarkdown"
import { toolCallView } from "./transcript/toolCallView"
import { toolDuration } from "./transcript/toolDuration"
import { transcriptItems } from "./transcript/transcriptItems"
import { judgeVerdictRow, resultFailure, verifyResult } from "./transcript/verifyRow"

type Row = { readonly line: TranscriptLine }

const lineCount = (text: string) => (text === "" ? 0 : text.split("\n").length)

/** The `<li>` every row is: its kind, seq and time as data, so the live script can place and pair rows. */
const RowItem: FC<Row & { class?: string; pending?: boolean; children?: unknown }> = ({ children, line, pending, ...props }) => (
  <li
    class={`row ${line.kind}${props.class === undefined ? "" : ` ${props.class}`}`}
    data-testid="transcript-row"
    data-seq={String(line.seq)}
    data-kind={line.kind}
    data-at={String(line.at)}
    data-tool={line.tool}
    data-pending={pending === true ? "" : undefined}
  >
    {children}
  </li>
)

/** Text folded under a summary. */
const Folded: FC<{ summary: string; text: string; open?: boolean }> = ({ open, summary, text }) => (
  <details class="fold" open={open}>
    <summary>{summary}</summary>
    <pre class="scroll" data-testid="transcript-text">{text}</pre>
  </details>
)

/** A tool's result: its output folded, with how it ended. */
const ResultRow: FC<Row> = ({ line }) => {
  const failure = resultFailure(line.text)
  const lines = lineCount(line.text)
  return (
    <RowItem line={line} class={failure === undefined ? "ok" : "failed"}>
      <Folded summary={`${failure === undefined ? "output" : `output (${failure})`} · ${lines} line${lines === 1 ? "" : "s"}`} text={line.text} />
    </RowItem>
  )
}

/** A tool call as its command or its edit; the result, once paired, sits in its list with the call's duration. */
const CallRow: FC<Row & { result?: TranscriptLine | undefined; settled?: boolean | undefined }> = ({ line, result, settled }) => {
  const view = toolCallView(line.tool, line.text)
  return (
    <RowItem line={line} pending={result === undefined && settled !== true}>
      <p class="tool-head">
        <span class="tool-name">{line.tool ?? "tool"}</span>
        {view._tag === "Edit" ? <>{` ${view.verb} `}<code data-testid="tool-path">{view.path}</code></> : null}{" "}
        <span class="duration" data-testid="tool-duration">{result === undefined ? "" : toolDuration(result.at - line.at)}</span>
      </p>
      {view._tag === "Command" ? <pre class="tool-command scroll" data-testid="tool-command">{view.command}</pre> : null}
      {view._tag === "Other" ? <pre class="tool-args scroll" data-testid="transcript-text">{view.text}</pre> : null}
      {view._tag === "Edit" && view.lines.length > 0 ? (
        <pre class="tool-edit scroll" data-testid="tool-edit">
          {view.lines.map((l) => (
            <span class={l.sign === "+" ? "diff-add" : l.sign === "-" ? "diff-del" : "diff-binary"}>{`${l.sign} ${l.text}\n`}</span>
          ))}
        </pre>
      ) : null}
      <ol class="tool-results">{result === undefined ? null : <ResultRow line={result} />}</ol>
    </RowItem>
  )
}

const Author: FC<{ who: string }> = ({ who }) => <span class="author" data-testid="row-author">{who}</span>

const Verdict: FC<{ pass: boolean; text: string }> = ({ pass, text }) => (
  <span class={`verdict ${pass ? "pass" : "fail"}`} data-testid="verdict">{text}</span>
)

/** A verification command: pass or fail, the command, its output folded. */
const VerifyRow: FC<Row> = ({ line }) => {
  const result = verifyResult(line.text)
  if (result === undefined) return <PlainRow line={line} />
  return (
    <RowItem line={line} class={result.passed ? "ok" : "failed"}>
      <p class="tool-head">
        <Verdict pass={result.passed} text={result.passed ? "pass" : "fail"} />
        {` round ${result.round} · exit ${result.exit}`}
      </p>
      <pre class="tool-command scroll" data-testid="tool-command">{result.command}</pre>
      {result.output === "" ? null : <Folded summary={`output · ${lineCount(result.output)} lines`} text={result.output} />}
    </RowItem>
  )
}

const PlainRow: FC<Row> = ({ line }) => (
  <RowItem line={line}><pre data-testid="transcript-text">{line.text}</pre></RowItem>
)

/** One row that pairs with nothing: the agent's Markdown, an operator's message, a judge's verdict, or plain text. */
const SingleRow: FC<Row> = ({ line }) => {
  if (line.kind === "tool_call") return <CallRow line={line} />
  if (line.kind === "tool_result") return <ResultRow line={line} />
  if (line.kind === "verify") return <VerifyRow line={line} />
  if (line.kind === "assistant") {
    return <RowItem line={line}><div class="markdown" data-testid="transcript-text">{raw(agentMarkdown(line.text))}</div></RowItem>
  }
  if (line.kind === "operator") {
    return <RowItem line={line}><Author who="operator" /><pre data-testid="transcript-text">{line.text}</pre></RowItem>
  }
  const judged = line.kind === "system" ? judgeVerdictRow(line.text) : undefined
  if (judged === undefined) return <PlainRow line={line} />
  return (
    <RowItem line={line} class="judge">
      <Author who={`judge ${judged.judge}`} /> <Verdict pass={judged.verdict === "pass"} text={judged.verdict} />
      {judged.reasoning === "" ? null : <pre data-testid="transcript-text">{judged.reasoning}</pre>}
    </RowItem>
  )
}

/** One row alone, as the live stream sends it: the script pairs a result with its call as `transcriptItems` does. */
const TranscriptRow: FC<Row> = SingleRow

/** A row's HTML for the live stream: the same markup the page renders, so a streamed row reads like a loaded one. */
export const transcriptRowHtml = async (line: TranscriptLine): Promise<string> => (<TranscriptRow line={line} />).toString()

/** A transcript, tool calls paired with their results. All text is escaped; the agent's Markdown goes through `agentMarkdown`. */
export const TranscriptLines: FC<{ lines: ReadonlyArray<TranscriptLine> }> = ({ lines }) => (
  <ol class="transcript">
    {transcriptItems(lines).map((item) =>
      item._tag === "Call" ? <CallRow line={item.call} result={item.result} settled={item.settled} /> : <SingleRow line={item.line} />
    )}
  </ol>
)
