import { Effect } from "effect"
import { type StartedSim, startSim } from "@usine/github-sim/startSim"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** The GitHub emulator for the scope, on 127.0.0.1. */
export const scopedSim = Effect.acquireRelease(
  Effect.promise(() => startSim()),
  (sim: StartedSim) => Effect.promise(() => sim.close())
)

/** A fresh folder for the scope, removed with everything in it. */
export const scopedDir = scopedTempDir("usine-app-")

/**
 * The daemon's GitHub user (`usine-bot`, write access) and the `acme/widgets` repository on the emulator, as most
 * daemon tests start; the bot's token.
 */
export const botAndRepository = (
  sim: StartedSim,
  repository: Omit<Parameters<StartedSim["control"]["createRepository"]>[0], "owner" | "name"> = {}
) =>
  Effect.promise(async () => {
    const { token } = await sim.control.createUser({ login: "usine-bot", permission: "write" })
    await sim.control.createRepository({ owner: "acme", name: "widgets", ...repository })
    return token
  })
