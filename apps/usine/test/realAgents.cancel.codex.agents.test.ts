import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { board, eventually } from "./support/http"
import { inToolCall, openedRun } from "./realAgents/interveneMoments"
import { processesUnder } from "./realAgents/processesUnder"
import { realAgentWorld } from "./realAgents/RealAgentWorld"

/** The real Codex CLI (`@openai/codex`, a dev dependency): its npm launcher starts the native binary. */
const CODEX = fileURLToPath(new URL("../node_modules/.bin/codex", import.meta.url))

/** A tool call far longer than the test: only a cancel ends it. */
const LONG_TOOL = "sleep 300; echo slept"

describe("Cancel ends a real Codex turn with turn/interrupt before its process is stopped (issue 32, ADR 0101)", () => {
  it.scopedLive(
    "canceled during a long tool call: Codex reports the turn interrupted, then its session is stopped; the Run is Canceled and no process is left",
    () =>
      Effect.gen(function* () {
        const w = yield* realAgentWorld({
          harness: "codex",
          command: [CODEX],
          stallMinutes: 2,
          scenarios: [{ name: "cancel", title: "slugify keeps punctuation", script: { turns: [{ run: LONG_TOOL }, { say: "Done." }] } }]
        })
        const run = yield* openedRun(w, "cancel")
        yield* inToolCall(w, run.id, LONG_TOOL)
        const asked = Date.now()
        yield* board(w.boardUrl, `/runs/${run.id}/cancel`, "POST")
        // Codex's own `turn/completed` (status `interrupted`), read by the daemon from its stream: Codex was running then.
        const logged = yield* w.usine.waitFor(/msg="the agent ended its turn when asked, before its session was stopped"[^\n]*/, "30 seconds")
        assert.match(logged[0], /status=interrupted turn=[0-9a-f-]{36}/)
        const closed = yield* w.ledger.closedRun("cancel", 60)
        assert.strictEqual(closed.state, "Canceled")
        const left = yield* eventually(
          "the agent's process group is gone",
          Effect.sync(() => (processesUnder(w.workspaces).length === 0 ? Option.some([]) : Option.none())),
          15
        ).pipe(Effect.orElseSucceed(() => processesUnder(w.workspaces)))
        assert.deepStrictEqual(left, [])
        // The interrupt is answered at once: the cancel is not held by the bounded wait (3 s) nor by SIGTERM's grace.
        assert.isBelow(Date.now() - asked, 10_000)
        assert.strictEqual(w.models["cancel"]?.requests.filter((r) => r.turn !== undefined).length, 1, "no model request after the interrupt")
      }),
    180_000
  )
})
