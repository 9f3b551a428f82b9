import { type ConfigIssue, issueAt } from "./ConfigIssue"
import { isLoopback } from "./isLoopback"
import { field, text } from "./RawConfig"

/**
 * The Board off loopback needs `token`: `usine check` says so as `usine up` would refuse. The raw value is read
 * after `${ENV}` interpolation, so `token: ${USINE_BOARD_TOKEN:-}` with the variable unset counts as none.
 */
export const checkBoard = (raw: unknown): ReadonlyArray<ConfigIssue> => {
  const board = field(raw, "board")
  const listen = text(field(board, "listen"))
  const host = listen === undefined ? undefined : /^(?:\[([^\]]+)\]|([^:[\]]+)):\d{1,5}$/.exec(listen.trim())
  const name = host?.[1] ?? host?.[2]
  const token = field(board, "token")
  if (name === undefined || isLoopback(name) || (token !== undefined && token !== "")) return []
  return [
    issueAt(
      ["board", "listen"],
      `the Board on ${name} is reachable from other machines: set \`board.token\` (at least 32 characters), or listen on 127.0.0.1`
    )
  ]
}
