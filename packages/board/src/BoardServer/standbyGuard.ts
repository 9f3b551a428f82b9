import type { MiddlewareHandler } from "hono"
import type { BoardStandby } from "../BoardStandby"
import type { BoardEnv } from "./BoardEnv"
import type { RunExit } from "./respond"
import { wantsJson } from "./respond"

/** What a standby still answers to besides reads: a person logs in and out here as on the leader's Board. */
const SESSION_PATHS = new Set(["/login", "/logout"])

/**
 * A standby's Board is read-only (ADR 0109): every page says who leads, and every action is refused with 409
 * `NotLeader`, naming the leader, before it reaches an action (a standby has no engine to act with).
 */
export const standbyGuard = (standby: BoardStandby["Type"], run: RunExit): MiddlewareHandler<BoardEnv> => async (c, next) => {
  const exit = await run(standby.leader)
  const leader = exit._tag === "Success" ? exit.value : "another node"
  c.set("standby", leader)
  if (c.req.method === "GET" || c.req.method === "HEAD" || SESSION_PATHS.has(c.req.path)) return next()
  const message = `this node is a standby: ${leader} leads the ledger; act on its Board`
  if (wantsJson(c)) return c.json({ error: "NotLeader", message, leader }, 409)
  return c.text(message, 409)
}

/** The banner's words on a standby's pages. */
export const standbyBanner = (leader: string) =>
  `Read-only: this node is a standby. ${leader} leads the ledger; its Board takes actions.`

