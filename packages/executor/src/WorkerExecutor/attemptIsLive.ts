import { Effect, Option } from "effect"
import type { Attempt } from "@usine/core/attempt/Attempt"
import { readJournal } from "./AttemptJournal"
import { turnDir, turnSession } from "./AttemptContext"
import type { AttemptLocator } from "./AttemptLocator"

/**
 * Whether an open Attempt can still be finished by following it again (ADR 0025): its folder and journal are on
 * its Worker, and its current turn's session runs, has not started yet, or exited with the executor's work after
 * it (verify, harvest) still to do. Only a session that vanished without an exit status is not live: the engine
 * records that as an InfraFailure, and recovery salvages the worktree.
 */
export const attemptIsLive = (locator: AttemptLocator, attempt: Attempt): Effect.Effect<boolean> => {
  const gone = (why: string) => Effect.as(Effect.logInfo(`attempt ${attempt.number} cannot be followed again: ${why}`), false)
  return Effect.gen(function* () {
    const found = yield* locator.find(attempt.id, attempt.worker)
    if (Option.isNone(found)) return yield* gone(`its folder is on no Worker${attempt.worker === undefined ? "" : ` (it ran on ${attempt.worker})`}`)
    const { attemptDir, worker } = found.value
    locator.place(attempt.id, worker.name)
    const entries = yield* readJournal(worker.transport, attemptDir)
    if (Option.isNone(entries)) return yield* gone(`no readable journal in ${attemptDir}`)
    if (entries.value.some((e) => e._tag === "outcome")) return true
    const turns = entries.value.flatMap((e) => (e._tag === "turn" ? [e.turn] : []))
    if (turns.length === 0) return true
    const current = Math.max(...turns)
    if (entries.value.some((e) => e._tag === "turnEnd" && e.turn === current)) return true
    const record = yield* turnSession(worker.transport, turnDir(attemptDir, current))
    if (Option.isNone(record)) return true
    const status = yield* worker.sessions.status(record.value)
    return status._tag === "Gone" ? yield* gone(`turn ${current}'s session (pid ${record.value.pid}) ended without an exit status`) : true
  }).pipe(Effect.catchAll((error) => gone(`its Worker did not answer: ${error.message}`)))
}
