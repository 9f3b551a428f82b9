import { Context } from "effect"

/**
 * The signed-in person an operator action is taken for: the Board provides their GitHub login around the action, and
 * the ledger writes it beside the `operator` actor of the transitions and notes the action causes (ADR 0096). A
 * reference, so the engine's own work, scripts with the Board token and tools act for nobody by name.
 */
export class ActingPerson extends Context.Reference<ActingPerson>()("usine/ActingPerson", {
  defaultValue: (): { readonly login: string | undefined } => ({ login: undefined })
}) {}
