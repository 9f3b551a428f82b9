import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { freePort } from "./support/freePort"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine demo", () => {
  it.scopedLive("with --auto-approve --exit-after 1, exits 0 once the scripted agent's pull request is open; --keep keeps its folder", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const port = yield* freePort
      const kept = join(dir, "kept")
      const demo = yield* startUsine(dir, ["demo", "--auto-approve", "--exit-after", "1", "--port", String(port), "--keep", kept])
      assert.strictEqual(yield* demo.exit("180 seconds"), 0, demo.stdout() + demo.stderr())
      assert.include(demo.stdout(), `board   http://127.0.0.1:${port}/`)
      assert.match(demo.stdout(), /\d+ pull requests? open:\n  #\d+ (Add deslugify|Strip punctuation in slugify) http:\/\/127\.0\.0\.1:\d+\/demo\/slugger\/pull\/\d+/)
      assert.strictEqual(demo.stderr(), "")
      assert.isTrue(existsSync(join(kept, "usine.yaml")), "the demo's config is kept")
      assert.include(readFileSync(join(kept, "logs", "usine.log"), "utf8"), "usine is up as", "its log is kept")
    }), 240_000)

  it.scopedLive("--keep refuses a folder that already holds something, naming it", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const kept = join(dir, "kept")
      mkdirSync(kept)
      writeFileSync(join(kept, "notes.txt"), "mine")
      const demo = yield* startUsine(dir, ["demo", "--port", String(yield* freePort), "--keep", kept])
      assert.strictEqual(yield* demo.exit("60 seconds"), 1)
      assert.strictEqual(demo.stderr().trim(), `usine demo: --keep ${kept}: the folder is not empty; give a new or empty one`)
      assert.strictEqual(readFileSync(join(kept, "notes.txt"), "utf8"), "mine")
    }), 120_000)
})
