import type { BoardItem } from "@usine/store/ReadModel/boardItems"
import type { BoardColumnSetting } from "../BoardSettings"

export interface BoardColumnView extends BoardColumnSetting {
  readonly cards: ReadonlyArray<BoardItem>
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

export const boardView = (columns: ReadonlyArray<BoardColumnSetting>, items: ReadonlyArray<BoardItem>): BoardView => {
  const open = items.filter((item) => item.state === "open" || item.state === "")
  return {
    columns: columns.map((column) => ({
      ...column,
      cards: open.filter((item) => columnOf(columns, item.labels)?.name === column.name)
    }))
  }
}
