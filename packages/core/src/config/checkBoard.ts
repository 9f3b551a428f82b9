import { type ConfigIssue, issueAt } from "./ConfigIssue"
import { isLoopback } from "./isLoopback"
import { field, has, text } from "./RawConfig"

/**
 * The Board off loopback needs `token` or `auth`: `usine check` says so as `usine up` would refuse. The raw value is
 * read after `${ENV}` interpolation, so `token: ${USINE_BOARD_TOKEN:-}` with the variable unset counts as none.
 */
const offLoopback = (board: unknown): ReadonlyArray<ConfigIssue> => {
  const listen = text(field(board, "listen"))
  const host = listen === undefined ? undefined : /^(?:\[([^\]]+)\]|([^:[\]]+)):\d{1,5}$/.exec(listen.trim())
  const name = host?.[1] ?? host?.[2]
  const token = field(board, "token")
  if (name === undefined || isLoopback(name) || (token !== undefined && token !== "") || has(board, "auth")) return []
  return [
    issueAt(
      ["board", "listen"],
      `the Board on ${name} is reachable from other machines: set \`board.token\` (at least 32 characters) or ` +
        "`board.auth`, or listen on 127.0.0.1"
    )
  ]
}

/** Signing in with GitHub needs the URL GitHub sends people back to: `host_name` as an http(s) URL. */
const signInCallback = (board: unknown): ReadonlyArray<ConfigIssue> => {
  if (!has(field(board, "auth"), "github")) return []
  const hostName = text(field(board, "host_name"))
  if (hostName !== undefined && /^https?:\/\//i.test(hostName)) return []
  return [
    issueAt(
      hostName === undefined ? ["board", "auth", "github"] : ["board", "host_name"],
      "`board.auth.github` needs `board.host_name` as the URL people reach the Board at (like https://usine.example.com): " +
        "the OAuth App's callback is <host_name>/auth/github/callback"
    )
  ]
}

/** `allow` narrows who signs in with `auth`; without it nobody signs in by name, so the list would mean nothing. */
const allowWithoutAuth = (board: unknown): ReadonlyArray<ConfigIssue> =>
  has(board, "allow") && !has(board, "auth")
    ? [issueAt(["board", "allow"], "`board.allow` lists who may sign in with `board.auth`, which is not set")]
    : []

/** The Board's rules that span several of its keys. */
export const checkBoard = (raw: unknown): ReadonlyArray<ConfigIssue> => {
  const board = field(raw, "board")
  return [...offLoopback(board), ...signInCallback(board), ...allowWithoutAuth(board)]
}
