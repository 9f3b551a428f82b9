import { Effect, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path/posix"
import { SessionGone } from "@usine/engine/Executor"
import { channelOf } from "../harness/Harness"
import { intervene } from "../Intervention"
import { readJournal } from "./AttemptJournal"
import { operatorDir, turnDir, turnSession } from "./AttemptContext"
import type { AttemptLocator } from "./AttemptLocator"
import { OperatorMessage } from "./OperatorMessage"
import { turnHarness } from "./turnHarness"

/**
 * Hands an operator message to the current turn's live session by its harness's channel (ADR 0062), then leaves it
 * in `operator/` with what became of it, for the Attempt's follower, which places both in the transcript at the line
 * it has reached and journals where (ADR 0023).
 */
export const deliverIntervention = (locator: AttemptLocator, attemptId: string, message: string) =>
  Effect.gen(function* () {
    const gone = new SessionGone({ attemptId })
    const found = yield* locator.find(attemptId)
    if (Option.isNone(found)) return yield* gone
    const { attemptDir, worker } = found.value
    const entries = Option.getOrElse(yield* readJournal(worker.transport, attemptDir), () => [])
    const turns = entries.flatMap((e) => (e._tag === "turn" ? [e.turn] : []))
    if (turns.length === 0) return yield* gone
    const current = Math.max(...turns)
    if (entries.some((e) => e._tag === "turnEnd" && e.turn === current)) return yield* gone
    const dir = turnDir(attemptDir, current)
    const record = yield* turnSession(worker.transport, dir)
    if (Option.isNone(record)) return yield* gone
    const channel = channelOf(yield* turnHarness(worker.transport, dir))
    const { at, delivery } = yield* intervene(worker.transport, { attemptId, record: record.value, message, channel })
    const file = `${String(at).padStart(15, "0")}-${randomBytes(4).toString("hex")}.json`
    yield* worker.transport.writeFile(
      path.join(operatorDir(attemptDir), file),
      Schema.encodeSync(OperatorMessage)({ text: message, at, note: `${delivery.status}: ${delivery.detail}` })
    )
    return delivery
  }).pipe(
    Effect.catchTags({
      WorkerUnreachable: () => new SessionGone({ attemptId }),
      HostOperationFailed: () => new SessionGone({ attemptId }),
      HostCommandTimedOut: () => new SessionGone({ attemptId })
    }),
    Effect.withSpan("WorkerExecutor.intervene")
  )
