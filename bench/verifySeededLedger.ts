import { Effect, Equal } from "effect"
import { runIdOf } from "@usine/core/ids/RunId"
import { closedStateOf, type OpenMix, openPair, pairCount, pairSubmission, SEED_EPOCH } from "./seedLedger"
import { runLedger } from "@usine/testkit/runLedger"

const check = (holds: boolean, what: string) => (holds ? Effect.void : Effect.dieMessage(`seeded ledger invalid: ${what}`))

/** The pair the budget check spends (it leaves an Ask on its Item): benches must not use it. */
const verificationPair = (events: number): number => pairCount(events) - 1

/**
 * Proves the bulk-loaded rows are what the store itself would have written: the store reads them back, replays
 * seeded Events as duplicates of their Runs, counts the seeded Runs against a cycle budget, and lists the open ones.
 */
export const verifySeededLedger = (events: number, open: OpenMix) =>
  Effect.gen(function*() {
    const store = yield* runLedger
    // Event i is in pair i >> 1; the last pair is spent on the budget check below.
    const samples = [0, 1, 7, Math.floor(events / 2), events - 3]
    for (const i of samples) {
      const s = pairSubmission(i >> 1, i & 1, SEED_EPOCH + i * 1000)
      const claim = yield* store.recordAndClaim(s)
      yield* check(claim._tag === "Claimed" && !claim.opened && claim.run.id === runIdOf(s.eventId), `Event ${i} replays as its Run`)
      if (claim._tag !== "Claimed") continue
      // The duplicate check rebuilds the Run without validating it (ADR 0045): the validating decode must agree.
      yield* check(Equal.equals(yield* store.getRun(claim.run.id), claim.run), `Run ${i} decodes as its duplicate answer`)
      const state = closedStateOf(i)
      yield* check(claim.run.state._tag === state && claim.run.version === 3, `Run ${i} is ${state} at version 3`)
      const attempts = yield* store.attempts(claim.run.id)
      yield* check(attempts.length === 1 && attempts[0]?.outcome?._tag === state, `Run ${i} has its Attempt`)
      const transitions = (yield* store.transitions(claim.run.id)).map((t) => `${t.from ?? ""}>${t.to}`)
      yield* check(transitions.join(" ") === `>Pending Pending>Running Running>${state}`, `Run ${i} transitions`)
    }

    const pair = verificationPair(events)
    const budget = { ...pairSubmission(pair, 9, Date.now()), maxCycles: 2 }
    const blocked = yield* store.recordAndClaim(budget)
    yield* check(blocked._tag === "CycleBlocked", "the two seeded Runs of a pair fill a budget of two")

    const runs = yield* store.openRuns
    const count = (tag: string) => runs.filter((r) => r.state._tag === tag).length
    yield* check(
      count("Waiting") === open.waiting && count("Queued") === open.queued && count("Running") === open.running,
      `open Runs ${count("Waiting")}/${count("Queued")}/${count("Running")}`
    )
    if (open.running > 0) {
      const k = open.waiting + open.queued
      const running = pairSubmission(openPair(events, k), 0, SEED_EPOCH + (events + k) * 1000, { loop: "build", approvalRequired: false })
      const attempts = yield* store.attempts(runIdOf(running.eventId))
      yield* check(attempts.length === 1 && attempts[0]?.outcome === undefined, "a seeded Running Run has its open Attempt")
    }
    return { samples: samples.length, open: runs.length }
  })
