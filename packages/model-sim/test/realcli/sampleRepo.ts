import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The sample project's code, with the bug the scripted session fixes. */
const GREET = `export const greet = (name) => "Hello " + name\n`

const TEST = `import { test } from "node:test"
import assert from "node:assert/strict"
import { greet } from "../src/greet.mjs"

test("greets by name", () => assert.equal(greet("Ada"), "Hello, Ada!"))
`

export const git = (cwd: string, ...args: ReadonlyArray<string>): string =>
  execFileSync("git", args, { cwd, encoding: "utf8", env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd } }).trim()

/**
 * A scratch folder with `home/` (the agent's HOME), `attempt/` (the Attempt's folder) and `worktree/`: a git
 * repository holding a small Node project whose test fails. Removed with everything in it when the scope closes.
 */
export const sampleRepo = Effect.acquireRelease(
  Effect.sync(() => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "usine-realcli-")))
    const home = join(root, "home")
    const attemptDir = join(root, "attempt")
    const workdir = join(root, "worktree")
    for (const dir of [home, attemptDir, join(workdir, "src"), join(workdir, "test")]) mkdirSync(dir, { recursive: true })
    writeFileSync(join(workdir, "src/greet.mjs"), GREET)
    writeFileSync(join(workdir, "test/greet.test.mjs"), TEST)
    git(workdir, "init", "-q", "-b", "main")
    git(workdir, "config", "user.name", "Sample Agent")
    git(workdir, "config", "user.email", "agent@example.invalid")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-qm", "Sample project")
    return { root, home, attemptDir, workdir }
  }),
  ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)
