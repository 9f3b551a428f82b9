import type { MiddlewareHandler } from "hono"
import type { BoardLedger } from "../BoardLedger"
import type { BoardEnv } from "./BoardEnv"
import { type RunExit, wantsJson } from "./respond"

/** What a standby still answers to besides reads: a person logs in and out here as on the leader's Board. */
const SESSION_PATHS = new Set(["/login", "/logout"])

/**
 * Puts the Board's ledger on the request for the pages and `/api/ledger`. A standby's Board is read-only (ADR 0109):
 * every action is refused with 409 `NotLeader`, naming the leader, before it reaches a route (a standby has no engine).
 */
export const ledgerGuard = (ledger: BoardLedger["Type"], run: RunExit): MiddlewareHandler<BoardEnv> => async (c, next) => {
  const exit = await run(ledger.view)
  if (exit._tag !== "Success") return next()
  const view = exit.value
  c.set("ledger", view)
  if (!view.standby || c.req.method === "GET" || c.req.method === "HEAD" || SESSION_PATHS.has(c.req.path)) return next()
  const leader = view.leader ?? "another node"
  const message = `this node is a standby: ${leader} leads the ledger; act on its Board`
  if (wantsJson(c)) return c.json({ error: "NotLeader", message, leader }, 409)
  return c.text(message, 409)
}

/** The line under the nav: a standby's banner, or the shared ledger's leader; nothing on a SQLite ledger. */
export const ledgerLine = (view: { readonly engine: string; readonly leader?: string | undefined; readonly standby: boolean }) =>
  view.standby
    ? `Read-only: this node is a standby. ${view.leader ?? "Another node"} leads the ledger; its Board takes actions.`
    : view.engine === "PostgreSQL"
    ? `Shared PostgreSQL ledger: this node leads it${view.leader === undefined ? "" : `, ${view.leader}`}.`
    : undefined
