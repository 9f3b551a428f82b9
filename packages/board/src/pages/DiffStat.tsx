import type { FC } from "hono/jsx"
import type { DiffFileStat, DiffSummary } from "@usine/core/attempt/DiffSummary"

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** `6 files changed, +120 −14` (and `, 1 binary` when git counted binary files). */
export const diffFigures = (diff: DiffSummary): string =>
  `${plural(diff.filesChanged, "file")} changed, +${diff.insertions} −${diff.deletions}${diff.binaryFiles === 0 ? "" : `, ${diff.binaryFiles} binary`}`

/** A path as text on one line: a newline or tab in it shows as `\n` or `\t`, never as a break. */
export const shownPath = (path: string): string => path.replace(/\n/g, "\\n").replace(/\t/g, "\\t")

const FileRow: FC<{ file: DiffFileStat }> = ({ file }) => (
  <li data-testid="diff-file" data-path={file.path}>
    {file.binary
      ? <span class="diff-binary">binary</span>
      : <><span class="diff-add">{`+${file.insertions}`}</span> <span class="diff-del">{`−${file.deletions}`}</span></>}{" "}
    <code data-testid="diff-path">{file.oldPath === undefined ? shownPath(file.path) : `${shownPath(file.oldPath)} → ${shownPath(file.path)}`}</code>
  </li>
)

/** The figures of a change, with its files folded under them. */
export const DiffStat: FC<{ diff: DiffSummary }> = ({ diff }) => (
  <details class="diffstat" data-testid="diff">
    <summary data-testid="diff-figures">{diffFigures(diff)}</summary>
    <ul class="diff-files">
      {diff.files.map((file) => <FileRow file={file} />)}
      {diff.filesOmitted === 0 ? null : <li class="empty" data-testid="diff-omitted">{`and ${plural(diff.filesOmitted, "more file")}`}</li>}
    </ul>
  </details>
)
