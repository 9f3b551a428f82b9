import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { DEFAULT_FORBIDDEN_PATHS } from "../../src/guards/ForbiddenPaths"
import { guardFailure, runGuards } from "../../src/guards/runGuards"
import { secretScan } from "../../src/guards/SecretScan"
import { parseUnifiedDiff } from "../../src/guards/UnifiedDiff"
import { makeRedactor } from "@usine/core/text/Redactor"

const TOKEN = `ghp_${"Xy7".repeat(12)}`
const CONFIGURED = "the-daemons-own-github-token"
const redactor = makeRedactor([CONFIGURED])

const repo = Effect.acquireRelease(
  Effect.sync(() => realpathSync(mkdtempSync(join(tmpdir(), "usine-guards-")))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Command.make("git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args).pipe(
    Command.workingDirectory(cwd),
    Command.env({ PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" }, { extendEnv: false }),
    Command.string
  )

const write = (root: string, files: Readonly<Record<string, string>>) => {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
}

/** A repository with a base commit and the agent's commit on top; returns `git diff -M base HEAD`. */
const agentDiff = (change: (root: string) => Effect.Effect<unknown, unknown, never>) =>
  Effect.gen(function* () {
    const root = yield* repo
    yield* git(root, "init", "-q", "-b", "main")
    write(root, { ".github/workflows/ci.yml": "on: push\n", "src/app.ts": "export const a = 1\n", "README.md": "# r\n" })
    yield* git(root, "add", "-A")
    yield* git(root, "commit", "-qm", "base")
    yield* change(root)
    yield* git(root, "add", "-A")
    yield* git(root, "commit", "-qm", "agent")
    return yield* git(root, "diff", "-M", "--no-color", "--no-ext-diff", "--src-prefix=a/", "--dst-prefix=b/", "HEAD~1", "HEAD")
  }).pipe(Effect.provide(NodeContext.layer))

describe("secretScan", () => {
  it("reports the file and new-file line of each secret an added line carries, never the secret", () => {
    const files = parseUnifiedDiff(
      ["--- a/config.ts", "+++ b/config.ts", "@@ -10,2 +10,3 @@", " const a = 1", `-const old = "${TOKEN}"`, "+const b = 2", `+const token = "${TOKEN}" // ${CONFIGURED}`, " const c = 3", ""].join("\n")
    )
    const violations = secretScan(files, redactor)
    assert.deepStrictEqual(violations, [
      { guard: "secret_scan", path: "config.ts", line: 12, detail: "looks like a github token" },
      { guard: "secret_scan", path: "config.ts", line: 12, detail: "looks like a secret" }
    ])
  })
})

describe("runGuards on a real git diff", () => {
  it.scoped("passes a clean change", () =>
    Effect.gen(function* () {
      const diff = yield* agentDiff((root) => Effect.sync(() => write(root, { "src/app.ts": "export const a = 2\n" })))
      assert.deepStrictEqual(runGuards({ diff, links: [] }, { forbiddenPaths: DEFAULT_FORBIDDEN_PATHS, maxChangedFiles: 5 }, redactor), { ok: true })
    })
  )

  it.scoped("reports every violation: a renamed workflow, a leaked token, too many files", () =>
    Effect.gen(function* () {
      const diff = yield* agentDiff((root) =>
        Effect.gen(function* () {
          yield* git(root, "mv", ".github/workflows/ci.yml", "ci-disabled.yml")
          write(root, { "src/config.ts": `// settings\nexport const url = "x"\nexport const token = "${TOKEN}"\n`, "README.md": "# r\nmore\n" })
        }).pipe(Effect.provide(NodeContext.layer))
      )
      const result = runGuards({ diff, links: [] }, { forbiddenPaths: DEFAULT_FORBIDDEN_PATHS, maxChangedFiles: 2 }, redactor)
      assert.isFalse(result.ok)
      const violations = result.ok ? [] : result.violations
      assert.deepStrictEqual(violations, [
        { guard: "forbidden_paths", path: ".github/workflows/ci.yml", detail: "matches forbidden path .github/workflows/**" },
        { guard: "max_changed_files", detail: "3 files changed, at most 2 allowed" },
        { guard: "secret_scan", path: "src/config.ts", line: 3, detail: "looks like a github token" }
      ])
      const failure = guardFailure(violations)
      assert.strictEqual(failure._tag, "AgentFailure")
      assert.include(failure.reason, "nothing was pushed")
      assert.include(failure.evidence, "secret_scan: src/config.ts:3 looks like a github token")
      assert.include(failure.evidence, "forbidden_paths: .github/workflows/ci.yml matches")
      assert.notInclude(failure.evidence, TOKEN)
    })
  )
})
