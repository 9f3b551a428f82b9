import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { daemonConfig, loop } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board } from "./support/http"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

/** A usine.yaml whose one local Worker carries `sandbox` (absent: the default) and whose Loop starts without approval. */
const configured = (dir: string, sandbox: string | undefined) =>
  Effect.gen(function* () {
    const sim = yield* scopedSim
    const token = yield* botAndRepository(sim)
    const boardPort = yield* freePort
    const workspaces = join(dir, "ws")
    const text = daemonConfig({ apiUrl: sim.url, token, boardPort, workspaces, loops: [loop("fix", "bug", "none")] })
    const root = `    root: ${JSON.stringify(workspaces)}\n`
    writeFileSync(join(dir, "usine.yaml"), sandbox === undefined ? text : text.replace(root, `${root}    sandbox: ${sandbox}\n`))
    return { sim, boardUrl: `http://127.0.0.1:${boardPort}` }
  })

/** A PATH holding every program of /usr/bin but bwrap: a host where bubblewrap is not installed. */
const pathWithoutBubblewrap = (dir: string) => {
  const bin = join(dir, "bin")
  mkdirSync(bin)
  for (const name of readdirSync("/usr/bin")) if (name !== "bwrap") symlinkSync(join("/usr/bin", name), join(bin, name))
  return bin
}

describe.concurrent("usine up and the Workers' sandbox", () => {
  it.scopedLive("warns at start about a Worker with sandbox: none, and the Workers page shows it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const { boardUrl } = yield* configured(dir, "none")
      const usine = yield* startUsine(dir, ["up"])
      yield* usine.waitFor(/level=WARN msg="workers\.local has sandbox: none: its agents and verify commands run unconfined/)
      yield* usine.waitFor(/usine is up/)
      const page = yield* board<{ readonly workers: ReadonlyArray<{ readonly name: string; readonly sandbox?: string }> }>(boardUrl, "/api/workers")
      assert.deepStrictEqual(page.workers.map((w) => [w.name, w.sandbox]), [["local", "none"]])
    }), 90_000)

  it.scopedLive("names a Worker that cannot run the sandbox and the fix, and refuses its Attempts with that reason", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const { sim } = yield* configured(dir, undefined)
      const usine = yield* startUsine(dir, ["up"], { PATH: pathWithoutBubblewrap(dir) })
      const reason = `the Worker local (${hostname()}) has no working sandbox (bwrap is not installed): install bubblewrap and socat there, or set \`sandbox: none\` on the Worker`
      yield* usine.waitFor(new RegExp(`level=ERROR msg="${reason.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}; until then its Attempts are refused"`))
      yield* Effect.promise(() => sim.control.createIssue({ repo: "acme/widgets", title: "Broken", labels: ["bug"] }))
      yield* usine.waitFor(new RegExp(`attempt 1 failed \\(AgentFailure\\): ${reason.replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}`))
    }), 90_000)
})
