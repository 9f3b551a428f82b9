import type { BoardItem } from "@usine/store/ReadModel/boardItems"
import type { BoardColumnSetting } from "../BoardSettings"

/** A pull request's CI counts as polling last stored them with its Item (no GitHub call per Board render). */
export type CardChecks = NonNullable<BoardItem["checks"]>

/** The pull request a Run opened; `checks` once polling has stored the pull request as an Item. */
export interface CardPullRequest {
  readonly url: string
  readonly number?: number | undefined
  readonly checks?: CardChecks | undefined
}

/** The newest Run of a card's Item: its state since its last change, and the pull request it opened. */
export interface CardRun {
  readonly id: string
  readonly loop: string
  readonly state: string
  /** When the Run last changed: a Running Run's elapsed time counts from it. */
  readonly since: number
  readonly pullRequest?: CardPullRequest | undefined
}

interface BoardCard extends BoardItem {
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

/** The card with its Run's pull request's checks, read from that pull request's own projection among `pulls`. */
const withChecks = (card: BoardCard, pulls: ReadonlyMap<string, CardChecks>): BoardCard => {
  const pr = card.latestRun?.pullRequest
  const checks = pr?.number === undefined ? undefined : pulls.get(`${card.repository.toLowerCase()}#${pr.number}`)
  if (card.latestRun === undefined || pr === undefined || checks === undefined) return card
  return { ...card, latestRun: { ...card.latestRun, pullRequest: { ...pr, checks } } }
}

export const boardView = (columns: ReadonlyArray<BoardColumnSetting>, items: ReadonlyArray<BoardCard>): BoardView => {
  const pulls = new Map<string, CardChecks>()
  for (const item of items) {
    if (item.kind === "pull_request" && item.checks !== undefined) pulls.set(`${item.repository.toLowerCase()}#${item.number}`, item.checks)
  }
  const open = items.filter((item) => item.state === "open" || item.state === "")
  return {
    columns: columns.map((column) => ({
      ...column,
      cards: open.filter((item) => columnOf(columns, item.labels)?.name === column.name).map((card) => withChecks(card, pulls))
    }))
  }
}
