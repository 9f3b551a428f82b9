import { Brand } from "effect"
import type { RunId } from "./RunId"

/** An Event's id is its dedup key: the ledger keeps every key forever. */
export type EventId = string & Brand.Brand<"EventId">
export const EventId = Brand.nominal<EventId>()

/**
 * `[loop, repository, number, contentHash]`, with the cycle generation appended once it is above zero,
 * so the same Loop never acts twice on the same Item content within a generation.
 */
export const itemEventIdOf = (input: {
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly contentHash: string
  readonly generation: number
}): EventId => {
  const key: Array<string | number> = [input.loop, input.repository.toLowerCase(), input.number, input.contentHash]
  if (input.generation > 0) key.push(input.generation)
  return EventId(JSON.stringify(key))
}

/** `[loop, repository, scheduledAt]`: one Event per Tick and repository. */
export const tickEventIdOf = (input: {
  readonly loop: string
  readonly repository: string
  readonly scheduledAt: string
}): EventId => EventId(JSON.stringify([input.loop, input.repository.toLowerCase(), input.scheduledAt]))

/** The operator's approval of a Run is an Event of its own. */
export const approvalEventIdOf = (runId: RunId): EventId => EventId(JSON.stringify(["operator-approval", runId]))

/** The answer to a cycle-budget Ask. */
export const cycleResetEventIdOf = (askId: string): EventId => EventId(`cycle-budget-reset:${askId}`)
