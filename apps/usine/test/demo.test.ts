import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { freePort } from "./support/freePort"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine demo", () => {
  it.scopedLive("with --auto-approve --exit-after 1, exits 0 once the scripted agent's pull request is open", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const demo = yield* startUsine(yield* scopedDir, ["demo", "--auto-approve", "--exit-after", "1", "--port", String(port)])
      assert.strictEqual(yield* demo.exit("180 seconds"), 0, demo.stdout() + demo.stderr())
      assert.include(demo.stdout(), `board   http://127.0.0.1:${port}/`)
      assert.match(demo.stdout(), /\d+ pull requests? open:\n  #\d+ (Add deslugify|Strip punctuation in slugify) http:\/\/127\.0\.0\.1:\d+\/demo\/slugger\/pull\/\d+/)
      assert.strictEqual(demo.stderr(), "")
    }), 240_000)
})
