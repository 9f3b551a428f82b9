import { EventId } from "../ids/EventId"

/**
 * The Event id of a refused trigger: the dedup key the trigger would have had, prefixed. A different id, so the
 * ledger's permanent dedup never stops the same content from opening a Run once a trusted user triggers it.
 */
export const refusalEventIdOf = (dedupKey: EventId): EventId => EventId(`${REFUSAL_PREFIX}${dedupKey}`)

const REFUSAL_PREFIX = "trust-refused:"
