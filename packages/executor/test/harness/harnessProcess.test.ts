import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { agentEnvironment } from "../../src/AgentEnvironment"
import { ClaudeHarness } from "../../src/harness/ClaudeHarness"
import { CodexHarness } from "../../src/harness/CodexHarness"
import { CommandHarness } from "../../src/harness/CommandHarness"
import type { Harness } from "../../src/harness/Harness"
import { PiHarness } from "../../src/harness/PiHarness"
import { PI_STATE_ID, PI_TASK_ID, piCommand } from "../../src/harness/piChannel"
import { CLAUDE_TASK_UUID, claudeUserLine } from "../../src/harness/claudeChannel"
import { codexThreadId } from "../../src/harness/codexAppServer"
import { fixturePath, replay } from "./replay"
import { attemptFolders, runAgent } from "./runAgent"

const fakeAgent = fileURLToPath(new URL("../fixtures/fake-agent.mjs", import.meta.url))

const daemonEnv = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: "/home/usine",
  GITHUB_TOKEN: "ghp_daemonsecretdaemonsecretdaemonsecret01",
  USINE_WEBHOOK_SECRET: "hook-secret-value",
  SSH_AUTH_SOCK: "/tmp/ssh-agent.sock",
  OPENAI_API_KEY: "sk-proj-granted"
}

interface Seen {
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly stdin: string
  readonly cwd: string
  readonly agentDirExists: boolean
}

/** Runs a harness's real invocation against the fake agent, replaying `fixture` as its stdout. */
const run = (harness: Harness, fixture: string | undefined, exit = 0) =>
  Effect.gen(function* () {
    const { attemptDir, workdir } = yield* attemptFolders
    const record = join(attemptDir, "record.json")
    const inv = harness.invocation({
      prompt: "create a file hello.txt\nwith care",
      model: undefined,
      workdir,
      attemptDir,
      command: ["node", fakeAgent]
    })
    const { env } = agentEnvironment({
      daemonEnv,
      config: {
        grant: ["OPENAI_API_KEY"],
        set: { FAKE_RECORD: record, FAKE_EXIT: String(exit), ...(fixture === undefined ? {} : { FAKE_STREAM: fixturePath(fixture) }) }
      },
      harness: inv.env
    })
    const out = yield* runAgent(inv, { workdir, attemptDir, env })
    const parser = harness.parser()
    const rows = out.lines.flatMap((line, i) => parser.line(line, 1000 + i))
    const seen: Seen = JSON.parse(readFileSync(record, "utf8"))
    return { ...out, rows, parser, seen, workdir, attemptDir }
  })

describe("harnesses against a real process", () => {
  it.scoped.each([
    { harness: CodexHarness, fixture: "codex-stream.jsonl" },
    { harness: PiHarness, fixture: "pi-stream.jsonl" },
    { harness: ClaudeHarness, fixture: "claude-stream.handwritten.jsonl" }
  ])("$harness.name: the CLI gets its prompt, its folder and no daemon secret; its stdout parses as recorded", ({ fixture, harness }) =>
    Effect.gen(function* () {
      const result = yield* run(harness, fixture)
      assert.strictEqual(result.exitCode, 0)
      const prompt = "create a file hello.txt\nwith care"
      // Pi (RPC mode), Claude Code (stream-json input) and Codex (app-server) take their task as a command on stdin
      // (ADR 0062, 0068).
      if (harness === CodexHarness) {
        const lines = result.seen.stdin.trimEnd().split("\n").map((line) => JSON.parse(line))
        assert.deepStrictEqual(lines.map((l) => l.method), ["initialize", "initialized", "thread/resume", "turn/start"])
        const threadId = codexThreadId(result.attemptDir)
        assert.strictEqual(lines[2].params.threadId, threadId)
        assert.strictEqual(lines[3].params.threadId, threadId)
        assert.deepStrictEqual(lines[3].params.input.map((i: { text: string }) => i.text), [prompt])
      } else {
        const stdin =
          harness === PiHarness
            ? `${piCommand({ id: PI_TASK_ID, type: "prompt", message: prompt })}${piCommand({ id: PI_STATE_ID, type: "get_state" })}`
            : claudeUserLine(prompt, CLAUDE_TASK_UUID)
        assert.strictEqual(result.seen.stdin, stdin)
      }
      assert.strictEqual(result.seen.cwd, result.workdir)
      for (const secret of ["GITHUB_TOKEN", "USINE_WEBHOOK_SECRET", "SSH_AUTH_SOCK"]) {
        assert.notProperty(result.seen.env, secret)
      }
      assert.strictEqual(result.seen.env["OPENAI_API_KEY"], "sk-proj-granted")
      if (harness !== ClaudeHarness) assert.isTrue(result.seen.agentDirExists)
      if (harness === CodexHarness) assert.strictEqual(result.seen.env["CODEX_HOME"], join(result.attemptDir, "codex-home"))
      const expected = replay(harness, fixture).rows
      assert.deepStrictEqual(result.rows, expected)
      assert.isUndefined(harness.exitFailure(result.exitCode, null, result.parser))
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.scoped("the command harness hands the prompt over as a file too, and a failing exit becomes an AgentFailure", () =>
    Effect.gen(function* () {
      const result = yield* run(CommandHarness, undefined, 4)
      const promptFile = result.seen.env["USINE_PROMPT_FILE"] ?? ""
      assert.strictEqual(promptFile, join(result.attemptDir, "prompt.md"))
      assert.strictEqual(readFileSync(promptFile, "utf8"), "create a file hello.txt\nwith care")
      assert.strictEqual(result.exitCode, 4)
      assert.strictEqual(CommandHarness.exitFailure(result.exitCode, null, result.parser)?._tag, "AgentFailure")
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
