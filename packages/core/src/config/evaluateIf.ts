import { Effect, Schema } from "effect"
import type { CompiledLoop } from "./CompiledLoop"
import type { TriggerContext } from "./TriggerContext"

/** A Loop's `if:` failed on an Item (a missing field, a wrong type) or gave something other than a boolean. */
class IfEvaluationFailed extends Schema.TaggedError<IfEvaluationFailed>()("IfEvaluationFailed", {
  loop: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `loop ${this.loop}: if: ${this.reason}`
  }
}

/** Evaluates a Loop's compiled `if:` against one Item. */
export const evaluateIf = (
  loop: Pick<CompiledLoop, "name" | "if">,
  context: TriggerContext
): Effect.Effect<boolean, IfEvaluationFailed> =>
  Effect.try({
    try: (): unknown => loop.if.program({ item: toCel(context.item), repository: context.repository }),
    catch: (error) => new IfEvaluationFailed({ loop: loop.name, reason: firstLine(error) })
  }).pipe(
    Effect.flatMap((result) =>
      typeof result === "boolean"
        ? Effect.succeed(result)
        : Effect.fail(new IfEvaluationFailed({ loop: loop.name, reason: `gave ${typeof result}, not a boolean` }))
    )
  )

/** JSON has one number type; CEL has int and double. Whole numbers become ints, so `item.number + 1` type-checks. */
const toCel = (value: unknown): unknown => {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : value
  if (Array.isArray(value)) return value.map(toCel)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, toCel(inner)]))
  }
  return value
}

const firstLine = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return message.split("\n")[0] ?? message
}
