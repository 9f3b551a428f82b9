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
export const attemptIsLive = (locator: AttemptLocator, attempt: Attempt): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const found = yield* locator.find(attempt.id, attempt.worker)
    if (Option.isNone(found)) return false
    const { attemptDir, worker } = found.value
    locator.place(attempt.id, worker.name)
    const entries = yield* readJournal(worker.transport, attemptDir)
    if (Option.isNone(entries)) return false
    if (entries.value.some((e) => e._tag === "outcome")) return true
    const turns = entries.value.flatMap((e) => (e._tag === "turn" ? [e.turn] : []))
    if (turns.length === 0) return true
    const current = Math.max(...turns)
    if (entries.value.some((e) => e._tag === "turnEnd" && e.turn === current)) return true
    const record = yield* turnSession(worker.transport, turnDir(attemptDir, current))
    if (Option.isNone(record)) return true
    return (yield* worker.sessions.status(record.value))._tag !== "Gone"
  }).pipe(Effect.orElseSucceed(() => false))
