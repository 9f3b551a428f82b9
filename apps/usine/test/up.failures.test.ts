import { mkdirSync, writeFileSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Scope } from "effect"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { acquireWorkerRootLock } from "@usine/executor/WorkerRootLock"
import { acquireLedgerLock } from "@usine/store/LedgerLock"
import { daemonConfig, loop } from "./support/daemonConfig"
import { freePort, occupiedPort } from "./support/freePort"
import { botAndRepository, scopedDir, scopedSim } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

/** Runs `usine up` on this configuration and expects it to stop at once: exit 1, one line on stderr, no stack. */
const upFails = (config: (dir: string) => Effect.Effect<string, never, Scope.Scope>) =>
  Effect.gen(function* () {
    const dir = yield* scopedDir
    writeFileSync(join(dir, "usine.yaml"), yield* config(dir))
    const usine = yield* startUsine(dir, ["up"])
    const code = yield* usine.exit("60 seconds")
    const lines = usine.stderr().trim().split("\n")
    assert.strictEqual(code, 1, usine.stderr())
    assert.strictEqual(lines.length, 1, usine.stderr())
    assert.notMatch(usine.stderr(), /\n\s+at /, "no stack trace")
    return lines[0] ?? ""
  })

const withSim = (patch: (c: { apiUrl: string; token: string; boardPort: number; workspaces: string; loops: Array<string> }) => string) =>
  (dir: string) =>
    Effect.gen(function* () {
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim)
      return patch({ apiUrl: sim.url, token, boardPort: yield* freePort, workspaces: join(dir, "ws"), loops: [loop("fix", "bug")] })
    })

describe.concurrent("usine up refuses to start", () => {
  it.scopedLive("on a broken configuration, naming the file, line and key", () =>
    Effect.gen(function* () {
      const line = yield* upFails(withSim((c) => daemonConfig(c).replace("poll_interval: 1s", "poll_interval: soon")))
      assert.match(line, /^usine\.yaml:5:16 poll_interval: expected seconds/)
    }), 90_000)

  it.scopedLive("when GitHub cannot be reached", () =>
    Effect.gen(function* () {
      const closed = yield* freePort
      const line = yield* upFails(withSim((c) => daemonConfig({ ...c, apiUrl: `http://127.0.0.1:${closed}` })))
      assert.match(line, new RegExp(`^usine up: cannot reach GitHub at http://127\\.0\\.0\\.1:${closed}: `))
    }), 90_000)

  it.scopedLive("when GitHub refuses the token", () =>
    Effect.gen(function* () {
      const line = yield* upFails(withSim((c) => daemonConfig({ ...c, token: "ghp_not_a_token_the_emulator_knows" })))
      assert.match(line, /^usine up: GitHub at http:\/\/127\.0\.0\.1:\d+ refused the token \(401 Bad credentials\)/)
      assert.notInclude(line, "ghp_not_a_token", "the token is never printed")
    }), 90_000)

  it.scopedLive("when the Board's port is taken", () =>
    Effect.gen(function* () {
      const taken = yield* occupiedPort
      const line = yield* upFails(withSim((c) => daemonConfig({ ...c, boardPort: taken })))
      assert.strictEqual(line, `usine up: the board cannot listen on 127.0.0.1:${taken}: the port is already in use (another usine? change board.listen)`)
    }), 90_000)

  it.scopedLive("when another process holds the ledger", () =>
    Effect.gen(function* () {
      const line = yield* upFails((dir) =>
        Effect.gen(function* () {
          yield* Effect.sync(() => mkdirSync(join(dir, "state"), { recursive: true }))
          yield* Effect.orDie(acquireLedgerLock(join(dir, "state", "ledger.db")))
          return yield* withSim(daemonConfig)(dir)
        })
      )
      assert.match(line, new RegExp(`^usine up: the ledger .*ledger\\.db is already open in process ${process.pid} `))
    }), 90_000)

  it.scopedLive("when another daemon holds the Worker root, naming the root and the holder", () =>
    Effect.gen(function* () {
      let root = ""
      const line = yield* upFails((dir) =>
        Effect.gen(function* () {
          root = join(dir, "ws")
          const note = "usine process 4242 on elsewhere (/other/usine.yaml)"
          yield* Effect.orDie(acquireWorkerRootLock({ worker: "local", transport: LocalTransport.make(), root, note }))
          return yield* withSim(daemonConfig)(dir)
        })
      )
      assert.strictEqual(
        line,
        `usine up: the Worker local's root ${root} on ${hostname()} is in use by usine process 4242 on elsewhere (/other/usine.yaml); ` +
          "only one usine daemon may use a Worker root: stop the other one, or give this Worker another root"
      )
    }), 90_000)
})
