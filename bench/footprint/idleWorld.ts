import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import type { StartedSim } from "@usine/github-sim/startSim"
import { freePort, SAMPLE_REPOSITORY, usineYaml } from "../throughput/benchWorld"

const OWNER = "footprint"
export const REPOSITORIES = 3
/** As the dev box of issue 34 ran it. */
export const POLL_SECONDS = 5

/**
 * A fresh usine.yaml in `dir` against the emulator: REPOSITORIES repositories seeded with the demo's project and a
 * few issues, none labelled, polled every POLL_SECONDS, the Board on a free port. Returns the Board's port.
 */
export const idleWorld = (sim: StartedSim, token: string, dir: string, prefix: string) =>
  Effect.gen(function* () {
    const repositories = Array.from({ length: REPOSITORIES }, (_, r) => `${OWNER}/${prefix}-${r}`)
    yield* Effect.promise(async () => {
      for (const repo of repositories) {
        await sim.control.createRepository({ owner: OWNER, name: repo.split("/")[1]!, seedDirectory: SAMPLE_REPOSITORY })
        for (let i = 1; i <= 5; i++) await sim.control.createIssue({ repo, title: `Idle item ${i}`, body: `Nothing to do ${i}.`, labels: [] })
      }
    })
    const boardPort = yield* freePort
    const yaml = usineYaml({ apiUrl: sim.url, token, repository: repositories.join(", "), boardPort, workspaces: join(dir, "workspaces"), slots: 2 })
      .replace("poll_interval: 1s", `poll_interval: ${POLL_SECONDS}s`)
    writeFileSync(join(dir, "usine.yaml"), yaml)
    return boardPort
  })
