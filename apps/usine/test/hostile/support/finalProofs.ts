import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { RunView } from "@usine/board/BoardViews/runView"
import { REPOSITORY } from "../../support/daemonConfig"
import { json } from "../../support/http"
import type { HostileDaemon } from "./HostileDaemon"
import { listenerFindings, markerFindings, tokenFindings } from "./proofs"

/** After every attack of a daemon: no planted program ran, nothing reached the listener, the token is nowhere else. */
export const nothingLeaked = (daemon: HostileDaemon, runs: ReadonlyMap<string, RunView | undefined>) =>
  Effect.gen(function* () {
    const pulls = yield* json<unknown>(`${daemon.sim.url}/repos/${REPOSITORY}/pulls?state=all&per_page=100`, { headers: { authorization: `token ${daemon.token}` } })
    assert.deepStrictEqual({
      "programs the agent planted that ran as the daemon": markerFindings(daemon),
      "what reached the hostile listener": listenerFindings(daemon),
      "where the GitHub token was found": tokenFindings(daemon, [...runs.values()].filter((view) => view !== undefined), pulls)
    }, {
      "programs the agent planted that ran as the daemon": [],
      "what reached the hostile listener": [],
      "where the GitHub token was found": []
    })
  })

/** The attacked daemon drains on SIGTERM and exits 0, its output free of the token. */
export const drainsClean = (daemon: HostileDaemon) =>
  Effect.gen(function* () {
    yield* daemon.usine.signal("SIGTERM")
    assert.strictEqual(yield* daemon.usine.exit("60 seconds"), 0, daemon.usine.stderr())
    assert.isFalse((daemon.usine.stdout() + daemon.usine.stderr()).includes(daemon.token), "the GitHub token is in the daemon's output")
  })
