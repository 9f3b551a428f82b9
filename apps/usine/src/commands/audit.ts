import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { configOption } from "./up"

const text = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description), Options.optional)

/** `usine audit`: who did what on the Board, newest first, from the running daemon's ledger (ADR 0107). */
export const audit = Command.make(
  "audit",
  {
    config: configOption,
    since: text("since", "from this time: 2026-12-01, 2026-12-01T09:00Z, or back from now: 30m, 12h, 7d"),
    until: text("until", "before this time, written as --since"),
    login: text("login", "one person's actions (a GitHub login), or `operator` for the Board token's"),
    repo: text("repo", "one repository's actions (owner/name)"),
    action: text("action", "one action: approve, retry, editAndRetry, cancel, intervene, pause, unpause, …"),
    loop: text("loop", "one Loop's actions"),
    json: Options.boolean("json").pipe(Options.withDescription("one JSON object a line (JSON Lines), as /api/audit gives them"))
  },
  (options) => Effect.flatMap(Effect.promise(() => import("./audit/runAudit")), ({ runAudit }) => runAudit(options))
).pipe(Command.withDescription("List who did what on the Board (approvals, retries, cancels, messages, pauses, refusals), newest first."))
