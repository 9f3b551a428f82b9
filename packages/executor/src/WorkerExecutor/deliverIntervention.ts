import { Effect, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as path from "node:path/posix"
import { SessionGone } from "@usine/engine/Executor"
import { intervene } from "../Intervention"
import { readJournal } from "./AttemptJournal"
import { operatorDir, turnDir, turnSession } from "./AttemptContext"
import type { AttemptLocator } from "./AttemptLocator"

const OperatorMessage = Schema.parseJson(Schema.Struct({ text: Schema.String, at: Schema.Number }))

/**
 * Hands an operator message to the current turn's live session, then leaves it in `operator/` for the Attempt's
 * follower, which places it in the transcript at the line it has reached and journals where (ADR 0023).
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
    const record = yield* turnSession(worker.transport, turnDir(attemptDir, current))
    if (Option.isNone(record)) return yield* gone
    const row = yield* intervene(worker.transport, { attemptId, record: record.value, message })
    const file = `${String(row.at).padStart(15, "0")}-${randomBytes(4).toString("hex")}.json`
    yield* worker.transport.writeFile(
      path.join(operatorDir(attemptDir), file),
      Schema.encodeSync(OperatorMessage)({ text: row.text, at: row.at })
    )
  }).pipe(
    Effect.catchTags({
      WorkerUnreachable: () => new SessionGone({ attemptId }),
      HostOperationFailed: () => new SessionGone({ attemptId }),
      HostCommandTimedOut: () => new SessionGone({ attemptId })
    }),
    Effect.withSpan("WorkerExecutor.intervene")
  )
