import { Effect, Option } from "effect"
import { parseItemKey } from "@usine/core/ids/ItemKey"
import type { RunId } from "@usine/core/ids/RunId"
import { barredApprover, sameLogin } from "@usine/core/people/barredApprover"
import { RunReads } from "@usine/store/RunReads"
import { BoardSettings } from "./BoardSettings"
import { FourEyesRefused } from "./FourEyes/FourEyesRefused"
import { ItemLabellers } from "./ItemLabellers"

/** The gate an approval opens: the start (Waiting) or the pull request (Reviewing). */
export type Gate = "start" | "pull_request"

/**
 * The Loops' four-eyes rules (`approval.by`, `approval.pull_request.by`, ADR 0103): a signed-in person's approval of
 * a gate is refused when they labelled the Item, or approved its start. Without a rule, anyone with the role approves.
 */
export class FourEyes extends Effect.Service<FourEyes>()("usine/FourEyes", {
  effect: Effect.gen(function* () {
    const reads = yield* RunReads
    const settings = yield* BoardSettings
    const labellers = yield* Effect.serviceOption(ItemLabellers)

    /** Who approved the start on the Board: the newest operator move out of Waiting into Queued that names a login. */
    const startApproverOf = (runId: RunId) =>
      Effect.map(reads.transitions(runId), (transitions) =>
        transitions
          .filter((t) => t.from === "Waiting" && t.to === "Queued" && t.actor === "operator")
          .sort((a, b) => b.seq - a.seq)[0]?.login)

    return {
      /** Fails with FourEyesRefused when the Run's Loop bars `login` from approving `gate`. */
      check: Effect.fn("FourEyes.check")(function* (login: string, gate: Gate, runId: RunId) {
        const run = yield* reads.getRun(runId)
        const loop = settings.current().loops.find((l) => l.name === run.loop)
        const rule = gate === "start" ? loop?.approvers?.start : loop?.approvers?.pullRequest
        if (loop === undefined || rule === undefined || rule === "anyone") return
        const item = parseItemKey(run.itemKey)
        const number = item?.number
        const labeller = item === undefined || number === undefined || Option.isNone(labellers)
          ? undefined
          : yield* labellers.value.labellerOf({ repository: item.repository, number }, loop.if, run.receivedAt)
        const startApprover = rule === "other_than_approver" ? yield* startApproverOf(run.id) : undefined
        const barred = barredApprover(rule, { labeller, startApprover, startRequired: run.approvalRequired })
        if (barred !== undefined && sameLogin(barred.login, login)) {
          return yield* new FourEyesRefused({ login, runId: run.id, gate, rule, because: barred.because })
        }
      })
    } as const
  })
}) {}
