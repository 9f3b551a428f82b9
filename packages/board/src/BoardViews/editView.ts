import { changedFields, type RunSetup } from "@usine/store/RunNote"

/** Lines of a changed task the timeline shows before folding the rest. */
export const TASK_LINES_SHOWN = 12
/** Characters of one task line the timeline shows. */
export const TASK_LINE_CHARS = 160

interface TaskLine {
  readonly sign: " " | "-" | "+"
  readonly text: string
}

/** A task's change, diff-ish: the lines that differ with one line around, truncated; the whole texts beside it. */
export interface TaskChange {
  readonly lines: ReadonlyArray<TaskLine>
  /** Lines or characters were left out of `lines`. */
  readonly truncated: boolean
  readonly before: string
  readonly after: string
}

/** An Edit and retry as the timeline shows it. */
export interface EditView {
  /** Agent and model changes, `before → after`; `(CLI's own)` for no model. */
  readonly fields: ReadonlyArray<{ readonly field: "agent" | "model"; readonly before: string; readonly after: string }>
  readonly task?: TaskChange | undefined
}

const cut = (text: string): { readonly text: string; readonly cut: boolean } =>
  text.length <= TASK_LINE_CHARS ? { text, cut: false } : { text: `${text.slice(0, TASK_LINE_CHARS)}…`, cut: true }

/** The changed middle of two texts by lines: common leading and trailing lines are dropped but one on each side. */
export const taskChange = (before: string, after: string): TaskChange => {
  const old = before.split("\n")
  const now = after.split("\n")
  let head = 0
  while (head < old.length && head < now.length && old[head] === now[head]) head++
  let tail = 0
  while (tail < old.length - head && tail < now.length - head && old[old.length - 1 - tail] === now[now.length - 1 - tail]) tail++
  const context = (line: string | undefined): ReadonlyArray<TaskLine> => (line === undefined ? [] : [{ sign: " ", text: line }])
  const all: ReadonlyArray<TaskLine> = [
    ...context(head > 0 ? old[head - 1] : undefined),
    ...old.slice(head, old.length - tail).map((text): TaskLine => ({ sign: "-", text })),
    ...now.slice(head, now.length - tail).map((text): TaskLine => ({ sign: "+", text })),
    ...context(tail > 0 ? old[old.length - tail] : undefined)
  ]
  const shown = all.slice(0, TASK_LINES_SHOWN).map((line) => ({ line, ...cut(line.text) }))
  return {
    lines: shown.map(({ line, text }) => ({ sign: line.sign, text })),
    truncated: all.length > TASK_LINES_SHOWN || shown.some((s) => s.cut),
    before,
    after
  }
}

/** What an Edit and retry changed, for the timeline. */
export const editView = (before: RunSetup, after: RunSetup): EditView => {
  const changed = changedFields(before, after)
  return {
    fields: changed.flatMap((field) =>
      field === "task" ? [] : [{ field, before: before[field] ?? "(CLI's own)", after: after[field] ?? "(CLI's own)" }]
    ),
    ...(changed.includes("task") ? { task: taskChange(before.task, after.task) } : {})
  }
}
