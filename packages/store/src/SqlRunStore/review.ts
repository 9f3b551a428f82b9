import { Clock, Effect, Option, Schema } from "effect"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { AttemptNotOpen } from "@usine/core/run/RunWriteRefusals"
import { ChangesRequested, type HeldPatch, Review, ReviewApproved } from "@usine/core/attempt/Review"
import type { RunId } from "@usine/core/ids/RunId"
import { approvePullRequest, requestChanges } from "@usine/core/run/state"
import type { HeldAttempt } from "../AttemptPatches"
import type { Ledger } from "./Ledger"
import { checkVersion, conflict } from "./RunWriter"

const ReviewJson = Schema.parseJson(Review)

const HeldRow = Schema.Struct({ id: Schema.String, patch: Schema.NullOr(Schema.String), patch_cut: Schema.Number, review_json: Schema.NullOr(Schema.String) })

const PatchRow = Schema.Struct({ number: Schema.Number, patch: Schema.String, patch_cut: Schema.Number })

/** The pull-request gate's side of the ledger (ADR 0063): the held Attempt's diff, and the operator's answer. */
export const makeReview = (ledger: Ledger) => {
  const { attempts, sql, writer } = ledger

  /** The newest Attempt whose outcome held its work at the gate, with its patch and review columns. */
  const newestHeld = (runId: RunId) =>
    Effect.gen(function* () {
      const all = yield* attempts.allOf(runId)
      const held = [...all].reverse().find((a) => a.outcome?._tag === "Succeeded" && a.outcome.result.held !== undefined)
      if (held === undefined || held.outcome?._tag !== "Succeeded" || held.outcome.result.held === undefined) {
        return Option.none<HeldAttempt>()
      }
      const rows = yield* sql`SELECT id, patch, patch_cut, review_json FROM usine_attempts WHERE id = ${held.id}`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(HeldRow)))
      )
      const row = rows[0]
      const review = row?.review_json == null ? Option.none() : Option.some(yield* Schema.decode(ReviewJson)(row.review_json))
      return Option.some<HeldAttempt>({
        attempt: held,
        held: held.outcome.result.held,
        patch: { text: row?.patch ?? "", cut: (row?.patch_cut ?? 0) === 1 },
        review
      })
    })

  return {
    answerReview: Effect.fn("OperatorActions.answerReview")(function* (
      runId: RunId,
      answer: { readonly text?: string; readonly expectedVersion?: number }
    ) {
      return yield* ledger.transaction(Effect.gen(function* () {
        const run = yield* ledger.loadRun(runId)
        const state = run.state
        const changes = answer.text !== undefined
        if (state._tag !== "Reviewing") return yield* conflict(run, changes ? "request changes on" : "approve the pull request of")
        yield* checkVersion(run, answer.expectedVersion)
        const found = yield* newestHeld(runId)
        if (Option.isNone(found)) return yield* conflict(run, "answer the review of (no held Attempt)")
        const at = yield* Clock.currentTimeMillis
        const review: Review = answer.text !== undefined ? new ChangesRequested({ text: answer.text, at }) : new ReviewApproved({ at })
        const json = yield* Schema.encode(ReviewJson)(review)
        yield* sql`UPDATE usine_attempts SET review_json = ${json} WHERE id = ${found.value.attempt.id}`
        const number = found.value.attempt.number
        return answer.text !== undefined
          ? yield* writer.save(run, { state: requestChanges(state) }, { actor: "operator", reason: `changes requested on Attempt ${number}` })
          : yield* writer.save(run, { state: approvePullRequest(state) }, { actor: "operator", reason: `pull request approved (Attempt ${number})` })
      }))
    }),

    recordPatch: Effect.fn("AttemptPatches.recordPatch")(function* (attemptId: AttemptId, patch: HeldPatch) {
      const rows = yield* sql`UPDATE usine_attempts SET patch = ${patch.text}, patch_cut = ${patch.cut ? 1 : 0}
          WHERE id = ${attemptId} AND outcome_json IS NULL RETURNING id`
      if (rows.length !== 1) return yield* new AttemptNotOpen({ attemptId: AttemptId(attemptId) })
    }),

    heldAttempt: Effect.fn("AttemptPatches.heldAttempt")((runId: RunId) => newestHeld(runId)),

    latestPatch: Effect.fn("AttemptPatches.latestPatch")(function* (runId: RunId) {
      const rows = yield* sql`SELECT number, patch, patch_cut FROM usine_attempts
          WHERE run_id = ${runId} AND patch IS NOT NULL ORDER BY number DESC, rowid DESC LIMIT 1`.pipe(
        Effect.flatMap(Schema.decodeUnknown(Schema.Array(PatchRow)))
      )
      const row = rows[0]
      return row === undefined
        ? Option.none<{ readonly attemptNumber: number; readonly patch: HeldPatch }>()
        : Option.some({ attemptNumber: row.number, patch: { text: row.patch, cut: row.patch_cut === 1 } })
    })
  }
}
