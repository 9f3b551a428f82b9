import { join } from "node:path"
import { Effect } from "effect"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { bareBatch, makeBareRunner } from "./bareRun"
import { benchRepository, benchSim } from "./benchWorld"
import { pushToPullSpans } from "./pullRequestPacing"

/** The same git and agent work as a daemon row, `items` Runs `slots` at a time, against a fresh emulator. */
export const measureBare = (slots: number, items: number) =>
  Effect.gen(function* () {
    const root = yield* scopedTempDir("usine-bench-bare-")
    const { sim, token } = yield* benchSim
    const repository = yield* benchRepository(sim, "acme", "bare", 0)
    const runner = makeBareRunner({
      root: join(root, "workspaces"),
      cloneUrl: repository.cloneUrl,
      apiUrl: sim.url,
      repository: "acme/bare",
      token,
      baseBranch: repository.defaultBranch
    })
    const batch = yield* Effect.promise(() => bareBatch(runner, items, slots))
    // The span the daemon's pacing is measured on, here with no throttle: the end of the push, `git log`, the POST.
    const log = yield* Effect.promise(() => sim.control.requestLog())
    return { ...batch, pushToPullMs: pushToPullSpans(log, "acme/bare") }
  }).pipe(Effect.scoped)

export type BareRow = Effect.Effect.Success<ReturnType<typeof measureBare>>
