import { SqlError } from "@effect/sql/SqlError"
import { type Context, Effect, Either, Option, ParseResult, Record } from "effect"

/** What the ledger's own queries fail with: the engine's error, and a row that does not decode. */
export type LedgerFault = SqlError | ParseResult.ParseError

/** A member of a port as the store builds it: it may also meet the ledger's faults. */
type Faulty<T> = T extends Effect.Effect<infer A, infer E, infer R> ? Effect.Effect<A, E | LedgerFault, R>
  : T extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R> ? (...args: P) => Effect.Effect<A, E | LedgerFault, R>
  : T

const isFault = (error: unknown): error is LedgerFault => error instanceof SqlError || ParseResult.isParseError(error)

/** An Effect, not an Option or Either (those are Effects too, and answered synchronously). */
const isEffect = (value: unknown): value is Effect.Effect<unknown, unknown, unknown> =>
  Effect.isEffect(value) && !Option.isOption(value) && !Either.isEither(value)

const dieOnFault = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.catchIf(effect, isFault, Effect.die)

/**
 * The store's edge, where a SQL failure becomes a defect, once (issue 35). Inside, queries keep `SqlError` and
 * `ParseError` in their types, so a transaction rolls back on them and the busy retry sees them as errors; a consumer
 * of a port sees only the refusals a caller can act on. Every member that is an Effect, or a function answering one,
 * is wrapped; other members pass unchanged. Given the port's tag, the store is typed by it (each member as the port
 * declares it, and the ledger's faults besides).
 */
export const ledgerPort = <I, S>(_tag: Context.Tag<I, S>, store: NoInfer<{ readonly [K in keyof S]: Faulty<S[K]> }>): S =>
  Record.map(store as Record<string, unknown>, (member) => {
    if (isEffect(member)) return dieOnFault(member)
    if (typeof member !== "function") return member
    return (...args: ReadonlyArray<unknown>) => {
      const answer: unknown = member(...args)
      return isEffect(answer) ? dieOnFault(answer) : answer
    }
  }) as S
