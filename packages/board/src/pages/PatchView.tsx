import type { FC } from "hono/jsx"
import { HELD_PATCH_MAX_BYTES } from "@usine/core/attempt/Review"
import { type PatchFile, patchFiles } from "../BoardViews/patchFiles"
import { shownPath } from "./DiffStat"

/** Files past this many are listed but not drawn: a large change stays a page that opens. */
const FILES_DRAWN = 50
/** Lines past this many in one file are folded behind a note. */
const LINES_DRAWN = 2000

const STATUS_LABEL: Record<PatchFile["status"], string> = { added: "added", deleted: "deleted", renamed: "renamed", modified: "" }

const fileName = (file: PatchFile) =>
  file.oldPath === undefined ? shownPath(file.path) : `${shownPath(file.oldPath)} → ${shownPath(file.path)}`

const Figures: FC<{ file: PatchFile }> = ({ file }) =>
  file.binary
    ? <span class="diff-binary">binary</span>
    : <><span class="diff-add">{`+${file.insertions}`}</span> <span class="diff-del">{`−${file.deletions}`}</span></>

const SIGN = { add: "+", del: "−", ctx: " ", note: " " } as const

const FileDiff: FC<{ file: PatchFile; index: number }> = ({ file, index }) => {
  let budget = LINES_DRAWN
  const lineCount = file.hunks.reduce((n, h) => n + h.lines.length, 0)
  return (
    <details open class="patch-file" id={`patch-file-${index}`} data-testid="patch-file" data-path={file.path} data-status={file.status}>
      <summary>
        <Figures file={file} /> <code>{fileName(file)}</code>
        {STATUS_LABEL[file.status] === "" ? null : <span class="patch-status" data-testid="patch-status">{` ${STATUS_LABEL[file.status]}`}</span>}
      </summary>
      {file.binary ? <p class="empty" data-testid="patch-binary">Binary file: its content is not shown.</p> : null}
      {!file.binary && file.hunks.length === 0 ? <p class="empty">{file.status === "renamed" ? "Renamed without a change." : "No line changed (mode only)."}</p> : null}
      {file.hunks.length === 0 ? null : (
        <div class="patch-scroll">
          <table class="patch">
            <tbody>
              {file.hunks.map((hunk) => {
                const shown = hunk.lines.slice(0, Math.max(0, budget))
                budget -= shown.length
                return (
                  <>
                    <tr class="patch-hunk"><td colspan={3}><code>{hunk.header}</code></td></tr>
                    {shown.map((line) => (
                      <tr class={`patch-${line.kind}`} data-testid={`patch-${line.kind}`}>
                        <td class="ln">{line.oldNumber === undefined ? "" : String(line.oldNumber)}</td>
                        <td class="ln">{line.newNumber === undefined ? "" : String(line.newNumber)}</td>
                        <td><code><span class="sign" aria-hidden="true">{SIGN[line.kind]}</span>{line.kind === "add" ? <ins>{line.text}</ins> : line.kind === "del" ? <del>{line.text}</del> : line.text}</code></td>
                      </tr>
                    ))}
                  </>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
      {lineCount > LINES_DRAWN ? <p class="empty">{`${lineCount - LINES_DRAWN} more lines: download the patch to read them.`}</p> : null}
    </details>
  )
}

/**
 * A unified diff per file, server-rendered: the file list with its figures, each file folded open with added and
 * removed lines marked (ins/del, signs and colour), binary and renamed files named, and the raw patch downloadable.
 */
export const PatchView: FC<{ patch: string; cut: boolean; download?: string | undefined; testId?: string }> = (props) => {
  const files = patchFiles(props.patch)
  return (
    <div class="patch-view" data-testid={props.testId ?? "patch"}>
      {props.patch === "" ? <p class="empty">(no diff stored)</p> : null}
      {files.length === 0 ? null : (
        <ul class="diff-files" data-testid="patch-files">
          {files.map((file, index) => (
            <li><Figures file={file} /> <a href={`#patch-file-${index}`}><code>{fileName(file)}</code></a>{STATUS_LABEL[file.status] === "" ? null : ` (${STATUS_LABEL[file.status]})`}</li>
          ))}
        </ul>
      )}
      {files.slice(0, FILES_DRAWN).map((file, index) => <FileDiff file={file} index={index} />)}
      {files.length > FILES_DRAWN ? <p class="empty">{`${files.length - FILES_DRAWN} more files: download the patch to read them.`}</p> : null}
      {props.cut ? <p class="error" data-testid="patch-cut">{`The diff was cut at its stored bound (${HELD_PATCH_MAX_BYTES / 1024} KiB): the last file may be incomplete.`}</p> : null}
      {props.download === undefined || props.patch === "" ? null : <p><a href={props.download} download data-testid="patch-download">Download the patch</a></p>}
    </div>
  )
}
