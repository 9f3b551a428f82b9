import { Effect, Schema } from "effect"
import type { CompiledLoop } from "./CompiledLoop"
import { liquid } from "./LiquidTemplate"
import type { TriggerContext } from "./TriggerContext"

/** A Loop's prompt could not be rendered for an Item: it reads a variable the Item does not have. */
class PromptRenderFailed extends Schema.TaggedError<PromptRenderFailed>()("PromptRenderFailed", {
  loop: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `loop ${this.loop}: prompt: ${this.reason}`
  }
}

/** Renders a Loop's compiled prompt for one Item; strict, so a missing variable fails rather than printing nothing. */
export const renderPrompt = (
  loop: Pick<CompiledLoop, "name" | "prompt">,
  context: TriggerContext
): Effect.Effect<string, PromptRenderFailed> =>
  Effect.try({
    try: (): string =>
      String(liquid.renderSync([...loop.prompt.templates], { item: context.item, repository: context.repository })),
    catch: (error) =>
      new PromptRenderFailed({ loop: loop.name, reason: error instanceof Error ? error.message : String(error) })
  })
