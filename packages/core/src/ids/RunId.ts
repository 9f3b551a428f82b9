import { Brand } from "effect"
import { createHash } from "node:crypto"
import type { EventId } from "./EventId"

/** Hex of the first 16 bytes of SHA-256 of `@usine/engine/DurableRun-<dedup key>`: one Run per Event, ever. */
export type RunId = string & Brand.Brand<"RunId">
export const RunId = Brand.nominal<RunId>()

export const runIdOf = (eventId: EventId): RunId =>
  RunId(createHash("sha256").update(`@usine/engine/DurableRun-${eventId}`).digest().subarray(0, 16).toString("hex"))
