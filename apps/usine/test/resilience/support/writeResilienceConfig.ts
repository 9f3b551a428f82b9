import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { freePort } from "../../support/freePort"
import { resilienceConfig } from "./resilienceConfig"

type Spec = Omit<Parameters<typeof resilienceConfig>[0], "apiUrl" | "token" | "boardPort">

/** Writes `dir/usine.yaml` for the suite (`resilienceConfig`) against the world's emulator and token, the Board on a free port. */
export const writeResilienceConfig = (dir: string, world: { readonly sim: { readonly url: string }; readonly token: string }, spec: Spec) =>
  Effect.map(freePort, (boardPort) =>
    writeFileSync(join(dir, "usine.yaml"), resilienceConfig({ apiUrl: world.sim.url, token: world.token, boardPort, ...spec }))
  )
