import { Schema } from "effect"
import { PositiveInt } from "./ConfigScalars"

/** An amount of US dollars above zero. */
const PositiveUsd = Schema.Number.pipe(
  Schema.positive(),
  Schema.annotations({ description: "an amount of US dollars above zero (like 2.5)" })
)

/** How many consecutive no-progress Attempts on an Item park it, when a Loop does not say. */
export const defaultMaxNoProgress = 2

/**
 * A Loop's spending caps. Tokens are input (cached included) plus output; money counts only where the harness reports
 * cost. Days are UTC days.
 */
export const LoopBudget = Schema.Struct({
  /** An Attempt that takes its Run past this is stopped (ChildSessionBudgetFailure). */
  runTokens: Schema.optional(PositiveInt).pipe(Schema.fromKey("run_tokens")),
  runCostUsd: Schema.optional(PositiveUsd).pipe(Schema.fromKey("run_cost_usd")),
  /** At this, the Loop admits no new Attempt until the next UTC day or an operator raises it. */
  dailyTokens: Schema.optional(PositiveInt).pipe(Schema.fromKey("daily_tokens")),
  dailyCostUsd: Schema.optional(PositiveUsd).pipe(Schema.fromKey("daily_cost_usd"))
})
export type LoopBudget = typeof LoopBudget.Type

/** The daemon's caps over every Loop, per UTC day. */
export const GlobalBudget = Schema.Struct({
  dailyTokens: Schema.optional(PositiveInt).pipe(Schema.fromKey("daily_tokens")),
  dailyCostUsd: Schema.optional(PositiveUsd).pipe(Schema.fromKey("daily_cost_usd"))
})
export type GlobalBudget = typeof GlobalBudget.Type

const DAY_MS = 86_400_000

/** The UTC day (`YYYY-MM-DD`) an instant falls on: daily caps and figures run from midnight UTC to midnight UTC. */
export const budgetDayOf = (at: number): string => new Date(at).toISOString().slice(0, 10)

/** The instant the next UTC day begins, when daily caps admit Attempts again. */
export const nextBudgetDayAt = (at: number): number => (Math.floor(at / DAY_MS) + 1) * DAY_MS
