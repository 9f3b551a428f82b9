import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { type OpenMix, type Seeded, seedLedger } from "./seedLedger"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** The open Runs every seeded ledger holds besides its closed ones: what a restart finds open. */
export const OPEN_MIX: OpenMix = { waiting: 333, queued: 333, running: 334 }

/** Bump when seedLedger writes different rows, so an older cached seed is not reused. */
const SEED_VERSION = 2

/** Set by run.ts: seeds made by one bench are copied by the next instead of seeded again (10^6 takes minutes). */
const CACHE = process.env["USINE_BENCH_CACHE"]

/**
 * A private ledger file with `events` closed Runs and OPEN_MIX open, in a temp dir the scope removes. With a cache,
 * the pristine seed stays there and this is a copy, so a bench may write to it freely.
 */
export const seededLedger = (events: number) =>
  Effect.gen(function*() {
    const dir = yield* scopedTempDir("usine-bench-")
    const file = join(dir, "ledger.sqlite")
    if (CACHE === undefined) return { file, seeded: yield* seedLedger(file, events, OPEN_MIX), cached: false }
    const pristine = join(CACHE, `ledger-v${SEED_VERSION}-${events}.sqlite`)
    const meta = `${pristine}.json`
    const cached = existsSync(meta)
    if (!cached) writeFileSync(meta, JSON.stringify(yield* seedLedger(pristine, events, OPEN_MIX)))
    yield* Effect.sync(() => copyFileSync(pristine, file))
    return { file, seeded: JSON.parse(readFileSync(meta, "utf8")) as Seeded, cached }
  })
