import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { daemonConfig, SAMPLE_REPOSITORY } from "./daemonConfig"
import { freePort } from "./freePort"
import { botAndRepository, scopedDir, scopedSim } from "./scopedSim"
import { startUsine } from "./UsineProcess"

/** The label the daemon tests' Loops act on, declared in their usine.yaml. */
const READY_LABEL = "labels:\n  - {name: ready-for-agent, color: \"0e8a16\"}"

/**
 * What most `usine up` tests start from: a daemon folder, the emulator with the bot and the sample repository, the
 * bot's token and a free Board port.
 */
export const upWorld = Effect.gen(function* () {
  const dir = yield* scopedDir
  const sim = yield* scopedSim
  const token = yield* botAndRepository(sim, { seedDirectory: SAMPLE_REPOSITORY })
  const port = yield* freePort
  return { dir, sim, token, port }
})

/**
 * Writes the world's usine.yaml (`daemonConfig` with the ready-for-agent label before `extra`, then `edit`) and starts
 * `usine up` there; the process and the Board's URL once it listens.
 */
export const upIn = (
  world: Effect.Effect.Success<typeof upWorld>,
  options: {
    readonly loops: ReadonlyArray<string>
    readonly extra?: string
    readonly agentDelay?: number
    readonly edit?: (yaml: string) => string
    readonly env?: Readonly<Record<string, string>>
  }
) =>
  Effect.gen(function* () {
    const yaml = daemonConfig({
      apiUrl: world.sim.url,
      token: world.token,
      boardPort: world.port,
      workspaces: join(world.dir, "workspaces"),
      extra: [READY_LABEL, ...(options.extra === undefined ? [] : [options.extra])].join("\n"),
      loops: options.loops,
      ...(options.agentDelay === undefined ? {} : { agentDelay: options.agentDelay })
    })
    writeFileSync(join(world.dir, "usine.yaml"), options.edit === undefined ? yaml : options.edit(yaml))
    const usine = yield* startUsine(world.dir, ["up"], options.env)
    const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
    return { usine, url }
  })
