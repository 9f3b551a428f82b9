import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AttemptLocator } from "@usine/executor/WorkerExecutor/AttemptLocator"
import { WorkerDirectory, type WorkerEntry } from "@usine/executor/WorkerDirectory"
import * as LocalTransport from "@usine/executor/LocalTransport"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** An Attempt folder as `prepareAttempt` leaves it: the locator only looks for its `workspace.json`. */
const attemptFolder = (root: string, attemptId: string) => {
  fs.mkdirSync(path.join(root, "attempts", attemptId), { recursive: true })
  fs.writeFileSync(path.join(root, "attempts", attemptId, "workspace.json"), "{}")
}

describe("AttemptLocator with Workers changed while running (ADR 0052)", () => {
  it.scoped("reads the Workers record at each use, and finds an Attempt on the entry it was placed on", () =>
    Effect.gen(function* () {
      const dir = yield* scopedTempDir("usine-locator-")
      const transport = LocalTransport.make()
      const before: WorkerEntry = { transport, root: path.join(dir, "old") }
      const after: WorkerEntry = { transport, root: path.join(dir, "new") }
      const workers: Record<string, WorkerEntry> = { w: before }
      const locator = yield* AttemptLocator.make(WorkerDirectory.of(workers))
      attemptFolder(before.root, "a1")

      locator.place("a1", "w")
      workers.w = after // a reload replaced w (another root); a1 still runs on the old one
      workers.extra = { transport, root: path.join(dir, "extra") }
      assert.deepStrictEqual(locator.names(), ["w", "extra"])
      assert.strictEqual((yield* locator.worker("w")).workspace.root, fs.realpathSync(after.root))

      const found = yield* locator.find("a1")
      assert.isTrue(Option.isSome(found))
      if (Option.isSome(found)) assert.strictEqual(found.value.attemptDir, path.join(fs.realpathSync(before.root), "attempts", "a1"))

      delete workers.extra
      const gone = yield* locator.worker("extra").pipe(Effect.flip)
      assert.include(gone.message, "no Worker named extra")
    }))
})
