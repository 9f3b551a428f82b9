import type { BoardItem } from "@usine/store/ReadModel/boardItems"
import type { BoardColumnSetting } from "../BoardSettings"

/** The newest Run of a card's Item: its state since its last change, and the pull request it opened. */
export interface CardRun {
  readonly id: string
  readonly loop: string
  readonly state: string
  /** When the Run last changed: a Running Run's elapsed time counts from it. */
  readonly since: number
  readonly pullRequest?: { readonly url: string; readonly number?: number | undefined } | undefined
}

export interface BoardCard extends BoardItem {
  readonly latestRun?: CardRun | undefined
}

export interface BoardColumnView extends BoardColumnSetting {
  readonly cards: ReadonlyArray<BoardCard>
}

/** The Board: one column per configured label, each open Item in the first column whose label it carries. */
export interface BoardView {
  readonly columns: ReadonlyArray<BoardColumnView>
}

/** The column an Item sits in: the first whose label it carries. */
export const columnOf = (
  columns: ReadonlyArray<BoardColumnSetting>,
  labels: ReadonlyArray<string>
): BoardColumnSetting | undefined => columns.find((column) => labels.includes(column.label))

export const boardView = (columns: ReadonlyArray<BoardColumnSetting>, items: ReadonlyArray<BoardCard>): BoardView => {
  const open = items.filter((item) => item.state === "open" || item.state === "")
  return {
    columns: columns.map((column) => ({
      ...column,
      cards: open.filter((item) => columnOf(columns, item.labels)?.name === column.name)
    }))
  }
}
