import { contentHash } from "@usine/core/content/contentHash"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"

/** What a Loop whose `if:` holds submits for an issue payload: the content hash, the dedup key, the rendered task. */
export const itemSubmission = (input: {
  readonly loop: string
  readonly repository: string
  readonly number: number
  readonly payload: unknown
  readonly receivedAt: number
  readonly approvalRequired?: boolean
  readonly maxCycles?: number
}): Submission => {
  const hash = contentHash(input.payload)
  return {
    eventId: itemEventIdOf({ loop: input.loop, repository: input.repository, number: input.number, contentHash: hash, generation: 0 }),
    loop: input.loop,
    itemKey: itemKeyOf(input.repository, input.number),
    repository: input.repository,
    number: input.number,
    generation: 0,
    contentHash: hash,
    task: `Work on ${input.repository}#${input.number}: read the issue, make the change, open a pull request that closes it.`,
    agent: "codex",
    approvalRequired: input.approvalRequired ?? false,
    maxCycles: input.maxCycles ?? 3,
    receivedAt: input.receivedAt
  }
}
