import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { shellCommand } from "../src/ModelSim/shellCommand"

const scratch = Effect.acquireRelease(
  Effect.sync(() => realpathSync(mkdtempSync(join(tmpdir(), "usine-model-sim-")))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const bash = (command: string, cwd: string) => spawnSync("bash", ["-c", command], { cwd, encoding: "utf8" })

// Everything a shell could mangle: quotes, `$`, backquotes, backslashes, `%`, no final newline.
const tricky = `it's "quoted" $HOME \`date\` \\n 100% \\\\ done\nlast line`

describe("file actions as shell commands (for Codex, whose only tool is a shell)", () => {
  it.scoped("a write reproduces the content byte for byte, creating folders", () =>
    Effect.gen(function* () {
      const dir = yield* scratch
      const run = bash(shellCommand({ _tag: "Write", path: "deep/er/it's.txt", content: tricky }), dir)
      assert.strictEqual(run.status, 0, run.stderr)
      assert.strictEqual(readFileSync(join(dir, "deep/er/it's.txt"), "utf8"), tricky)
    })
  )

  it.scoped("an edit replaces one exact text and fails, changing nothing, when the text is absent", () =>
    Effect.gen(function* () {
      const dir = yield* scratch
      bash(shellCommand({ _tag: "Write", path: "a.txt", content: `keep\n${tricky}\nkeep $& too\n` }), dir)
      const edit = bash(shellCommand({ _tag: "Edit", path: "a.txt", oldText: tricky, newText: "new $& 'text'" }), dir)
      assert.strictEqual(edit.status, 0, edit.stderr)
      assert.strictEqual(readFileSync(join(dir, "a.txt"), "utf8"), "keep\nnew $& 'text'\nkeep $& too\n")
      const missing = bash(shellCommand({ _tag: "Edit", path: "a.txt", oldText: "absent", newText: "x" }), dir)
      assert.strictEqual(missing.status, 1)
      assert.include(missing.stderr, "text not found")
      assert.strictEqual(readFileSync(join(dir, "a.txt"), "utf8"), "keep\nnew $& 'text'\nkeep $& too\n")
    })
  )
})
