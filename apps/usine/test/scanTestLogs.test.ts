import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { maskToken, scanProblems, scanTestLogs } from "./support/scanTestLogs"
import { scopedDir } from "./support/scopedSim"

const SIM_TOKEN = "ghp_sim0123456789abcdef0123456789abcdef"
const UP = `level=INFO msg="usine is up as usine-bot; the board is at http://127.0.0.1:8787/"\n`

/** An archive of `daemons` clean daemon folders, laid out as `archiveProcessLogs` writes them. */
const cleanArchive = (dir: string, daemons: number) => {
  for (let n = 1; n <= daemons; n++) {
    const logs = join(dir, `up.test.ts-${n}`, "files", "state", "logs")
    mkdirSync(logs, { recursive: true })
    writeFileSync(join(logs, "usine.log"), `${UP}level=INFO msg="token=[REDACTED:github_token]"\n`)
    writeFileSync(join(dir, `up.test.ts-${n}`, `process-${n}.stdout`), UP)
    writeFileSync(join(dir, `up.test.ts-${n}`, `process-${n}.stderr`), "")
  }
}

describe("scanTestLogs", () => {
  it.scoped("finds a planted token with its file and line, its middle masked", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      cleanArchive(dir, 12)
      const attempt = join(dir, "up.test.ts-3", "files", "workspaces", "attempts", "a_b_1")
      mkdirSync(attempt, { recursive: true })
      writeFileSync(join(attempt, "stream.jsonl"), `{"line":1}\n{"line":2}\n{"text":"push with ${SIM_TOKEN} now"}\n`)
      writeFileSync(join(dir, "up.test.ts-4", "process-4.stderr"), "x-access-token:ghs_abc@host and github_pat_11AAAAAAAAAA_bbbbbbbb\n")
      const scan = scanTestLogs(dir)
      assert.deepStrictEqual(scan.found, [
        { file: "up.test.ts-3/files/workspaces/attempts/a_b_1/stream.jsonl", line: 3, masked: "ghp_sim******************************ef" },
        { file: "up.test.ts-4/process-4.stderr", line: 1, masked: "ghs_***" },
        { file: "up.test.ts-4/process-4.stderr", line: 1, masked: "github_pat_11A****************bb" }
      ])
      const problems = scanProblems(scan, 0)
      assert.deepStrictEqual(problems, scanProblems(scan, 10), "a token fails partial and full runs alike")
      assert.strictEqual(problems[0], "up.test.ts-3/files/workspaces/attempts/a_b_1/stream.jsonl:3: ghp_sim******************************ef")
      assert.notInclude(problems.join("\n"), SIM_TOKEN)
    })
  )

  it.scoped("passes a clean archive with enough daemons, and is case-sensitive", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      cleanArchive(dir, 10)
      writeFileSync(join(dir, "up.test.ts-1", "process-1.stderr"), "GHP_NOT_A_TOKEN Ghs_ github_PAT_\n")
      const scan = scanTestLogs(dir)
      assert.deepStrictEqual(scan, { files: 30, daemons: 10, daemonLogs: 10, missingLogs: [], found: [] })
      assert.deepStrictEqual(scanProblems(scan, 10), [])
    })
  )

  it.scoped("in a full run, fails an empty or missing archive, too few daemons, or a daemon whose log is missing", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const empty = scanTestLogs(dir)
      assert.deepStrictEqual(empty, { files: 0, daemons: 0, daemonLogs: 0, missingLogs: [], found: [] })
      assert.deepStrictEqual(scanTestLogs(join(dir, "never-made")), empty)
      assert.deepStrictEqual(scanProblems(empty, 10), [
        "the archive is empty: no process output or log was archived",
        "only 0 daemons came up in the archived output, fewer than the 10 a full run starts"
      ])
      assert.deepStrictEqual(scanProblems(empty, 0), [], "a partial run may archive nothing")

      cleanArchive(dir, 9)
      assert.deepStrictEqual(scanProblems(scanTestLogs(dir), 10), [
        "only 9 daemons came up in the archived output, fewer than the 10 a full run starts"
      ])
      mkdirSync(join(dir, "crash.test.ts-1"))
      writeFileSync(join(dir, "crash.test.ts-1", "process-10.stdout"), UP)
      writeFileSync(join(dir, "crash.test.ts-1", "process-11.stdout"), UP)
      assert.deepStrictEqual(scanProblems(scanTestLogs(dir), 10), [
        "crash.test.ts-1: a daemon came up there but no usine.log was archived"
      ])
    })
  )

  it("masks the middle of every token it prints", () => {
    assert.strictEqual(maskToken("ghp_abcdefghij"), "ghp_abc*****ij")
    assert.strictEqual(maskToken("ghp_"), "ghp_")
    assert.strictEqual(maskToken("ghs_short"), "ghs_*****")
  })
})
