import { Command } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { HarnessInvocation } from "../../src/harness/Harness"

/** A temp folder with `worktree/` and `attempt/`, removed when the scope closes. */
export const attemptFolders = Effect.acquireRelease(
  Effect.sync(() => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "usine-harness-")))
    mkdirSync(join(root, "worktree"))
    mkdirSync(join(root, "attempt"))
    return { root, workdir: join(root, "worktree"), attemptDir: join(root, "attempt") }
  }),
  ({ root }) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)

/**
 * Runs an invocation the way the executor must: its files written into the Attempt's folder, exactly `env` as the
 * environment (never extended with the test runner's), the prompt on stdin. Returns stdout's lines and the exit code.
 */
export const runAgent = (inv: HarnessInvocation, options: { readonly workdir: string; readonly attemptDir: string; readonly env: Readonly<Record<string, string>> }) =>
  Effect.gen(function* () {
    for (const [relative, content] of Object.entries(inv.files)) {
      const path = join(options.attemptDir, relative)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, content)
    }
    const [binary = "", ...args] = inv.argv
    const command = Command.make(binary, ...args).pipe(
      Command.workingDirectory(options.workdir),
      Command.env(options.env, { extendEnv: false }),
      Command.feed(inv.stdin ?? "")
    )
    const process = yield* Command.start(command)
    const lines = yield* process.stdout.pipe(Stream.decodeText(), Stream.splitLines, Stream.runCollect)
    const exitCode = yield* process.exitCode
    return { lines: Chunk.toReadonlyArray(lines), exitCode: Number(exitCode) }
  })
