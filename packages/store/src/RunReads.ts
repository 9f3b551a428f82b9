import { Context } from "effect"
import type { AttemptPatches } from "./AttemptPatches"
import type { CycleBudgets } from "./CycleBudgets"
import type { RunLookup } from "./RunLookup"

/**
 * The Run reads the Board needs of the ledger, and no write (issue 35): a Run, its transitions, its held patch, an Item's cycle
 * generation and the open budget Asks. Every change the Board asks for goes through the engine, which owns the
 * writes; the Board cannot reach one through this port.
 */
export class RunReads extends Context.Tag("usine/RunReads")<
  RunReads,
  Pick<RunLookup["Type"], "getRun" | "transitions"> & Pick<AttemptPatches["Type"], "latestPatch"> & Pick<CycleBudgets["Type"], "generation" | "asks">
>() {}
