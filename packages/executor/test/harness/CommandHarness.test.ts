import { assert, describe, it } from "@effect/vitest"
import { CommandHarness, MissingAgentCommand } from "../../src/harness/CommandHarness"
import { harnessFor } from "../../src/harness/harnessFor"

const input = { prompt: "fix #12", model: "m", workdir: "/w/tree", attemptDir: "/w/attempt", command: ["aider", "--yes"] }

describe("CommandHarness", () => {
  it("runs the configured argv with the prompt on stdin and in prompt.md", () => {
    const inv = CommandHarness.invocation(input)
    assert.deepStrictEqual(inv.argv, ["aider", "--yes"])
    assert.strictEqual(inv.stdin, "fix #12")
    assert.deepStrictEqual(inv.files, { "prompt.md": "fix #12" })
    assert.deepStrictEqual(inv.env, { USINE_PROMPT_FILE: "/w/attempt/prompt.md" })
    assert.throws(() => CommandHarness.invocation({ ...input, command: undefined }), MissingAgentCommand)
    assert.strictEqual(harnessFor("command"), CommandHarness)
  })

  it("makes each output line an assistant row and its tail the evidence of a failed exit", () => {
    const parser = CommandHarness.parser()
    const rows = ["working", "", "   ", ...Array.from({ length: 30 }, (_, i) => `line ${i}`)].flatMap((l, i) =>
      parser.line(l, i)
    )
    assert.strictEqual(rows.length, 31)
    assert.isTrue(rows.every((r) => r.kind === "assistant"))
    assert.isUndefined(CommandHarness.exitFailure(0, null, parser))
    const failure = CommandHarness.exitFailure(3, null, parser)
    assert.strictEqual(failure?._tag, "AgentFailure")
    assert.include(failure?.reason, "code 3")
    assert.isTrue(failure?.evidence.startsWith("line 10\n"))
    assert.isTrue(failure?.evidence.endsWith("line 29"))
  })
})
