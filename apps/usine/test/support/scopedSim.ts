import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { type StartedSim, startSim } from "@usine/github-sim/startSim"

/** The GitHub emulator for the scope, on 127.0.0.1. */
export const scopedSim = Effect.acquireRelease(
  Effect.promise(() => startSim()),
  (sim: StartedSim) => Effect.promise(() => sim.close())
)

/** A fresh folder for the scope, removed with everything in it. */
export const scopedDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "usine-app-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)
