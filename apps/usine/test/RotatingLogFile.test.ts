import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { RotatingLogFile } from "../src/daemon/RotatingLogFile"
import { scopedDir } from "./support/scopedSim"

describe("RotatingLogFile", () => {
  it.scoped("rotates by size and keeps the newest files", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const troubles: Array<string> = []
      const log = new RotatingLogFile({ file: join(dir, "logs", "usine.log"), maxBytes: 100, keep: 2, onTrouble: (m) => troubles.push(m) })
      for (let i = 0; i < 20; i++) log.write(`line ${String(i).padStart(2, "0")} ${"x".repeat(30)}`)
      assert.deepStrictEqual(readdirSync(join(dir, "logs")).sort(), ["usine.log", "usine.log.1", "usine.log.2"])
      const current = readFileSync(join(dir, "logs", "usine.log"), "utf8")
      assert.isAtMost(Buffer.byteLength(current), 100)
      assert.include(current, "line 19")
      assert.include(readFileSync(join(dir, "logs", "usine.log.1"), "utf8"), "line 17")
      assert.deepStrictEqual(troubles, [])
    })
  )

  it.scoped("never throws when the file cannot be written, and says so once", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      writeFileSync(join(dir, "logs"), "a file where the folder should be")
      const troubles: Array<string> = []
      const log = new RotatingLogFile({ file: join(dir, "logs", "usine.log"), maxBytes: 1000, keep: 2, onTrouble: (m) => troubles.push(m) })
      log.write("first")
      log.write("second")
      assert.strictEqual(troubles.length, 1)
      assert.match(troubles[0] ?? "", /^cannot write the log file .*usine\.log/)
    })
  )
})
