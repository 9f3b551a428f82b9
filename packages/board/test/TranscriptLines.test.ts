import { assert, describe, it } from "@effect/vitest"
import type { TranscriptLine } from "@usine/store/ReadModel/TranscriptLine"
import { AttemptId } from "@usine/core/ids/AttemptId"
import { TranscriptLines, transcriptRowHtml } from "../src/pages/TranscriptLines"
import { agentMarkdown } from "@usine/board/pages/transcript/agentMarkdown"
import { micromark } from "micromark"
import { gfm, gfmHtml } from "micromark-extension-gfm"
import { attrs, texts } from "./support/html"

const attemptId = AttemptId("a".repeat(32))
let seq = 0
const line = (kind: TranscriptLine["kind"], text: string, at: number, tool?: string): TranscriptLine => ({
  attemptId, seq: ++seq, kind, text, at, ...(tool === undefined ? {} : { tool })
})

const render = async (lines: ReadonlyArray<TranscriptLine>) => String(await TranscriptLines({ lines }))

/** The `<li>` that starts at `data-seq="n"`, through its own closing tag (rows nest one level: a call holds its result). */
const rowHtml = (html: string, n: number): string => {
  const start = html.indexOf(`<li class="row`, html.indexOf(`data-seq="${n}"`) - 200)
  let depth = 0
  for (let i = start; i < html.length; i++) {
    if (html.startsWith("<li", i)) depth++
    if (html.startsWith("</li>", i) && --depth === 0) return html.slice(start, i + 5)
  }
  return ""
}

describe("TranscriptLines", () => {
  it("shows a shell tool call as its command, its output folded beneath it with the call's duration", async () => {
    const call = line("tool_call", "node --test", 1_000, "bash")
    const other = line("tool_call", '{"path":"README.md"}', 1_100, "read")
    const result = line("tool_result", "ok 1 - slugify\n# pass 1", 3_500, "bash")
    const html = await render([call, other, result])
    const callRow = rowHtml(html, call.seq)
    assert.deepStrictEqual(texts(callRow, "tool-command"), ["node --test"])
    assert.deepStrictEqual(texts(callRow, "tool-duration"), ["2.5 s"])
    assert.notInclude(callRow, "data-pending")
    // The output sits inside the call's row, folded (a closed <details>), not as a row of its own.
    assert.match(callRow, /<ol class="tool-results"><li class="row tool_result ok"[^>]*data-seq="3"[^>]*><details class="fold"><summary>output · 2 lines<\/summary><pre class="scroll" data-testid="transcript-text">ok 1 - slugify\n# pass 1<\/pre>/)
    assert.include(rowHtml(html, other.seq), "data-pending", "the read call has no result yet")
    // Every row once; the result inside its call, before the next call.
    assert.deepStrictEqual(attrs(html, "transcript-row", "data-seq"), [call, result, other].map((l) => String(l.seq)))
  })

  it("pairs each result with the oldest open call of its tool and marks a failed one", async () => {
    const first = line("tool_call", "npm test", 0, "bash")
    const second = line("tool_call", "npm run lint", 10, "bash")
    const r1 = line("tool_result", "1 failing\n[exit code 1]", 20, "bash")
    const r2 = line("tool_result", "clean", 1_030, "bash")
    const html = await render([first, second, r1, r2])
    assert.include(rowHtml(html, first.seq), `data-seq="${r1.seq}"`)
    assert.include(rowHtml(html, first.seq), "output (exit 1)")
    assert.include(rowHtml(html, second.seq), `data-seq="${r2.seq}"`)
    assert.deepStrictEqual(texts(rowHtml(html, second.seq), "tool-duration"), ["1.0 s"])
    assert.include(rowHtml(html, first.seq), 'class="row tool_result failed"')
  })

  it("takes a Codex patch's call as done once a row follows it: a failure right after is its result, never a later call's", async () => {
    const applied = line("tool_call", "update src/a.js", 0, "apply_patch")
    const said = line("assistant", "now the test", 5)
    const refused = line("tool_call", "add test/a.test.js", 10, "apply_patch")
    const failed = line("tool_result", "patch failed", 12, "apply_patch")
    const html = await render([applied, said, refused, failed])
    assert.notInclude(rowHtml(html, applied.seq), "data-pending", "a patch that applied has no result and waits for none")
    assert.notInclude(rowHtml(html, applied.seq), "patch failed")
    assert.include(rowHtml(html, refused.seq), `data-seq="${failed.seq}"`)
    assert.deepStrictEqual(texts(html, "tool-path"), ["update src/a.js", "add test/a.test.js"])
  })

  it("shows a write and an edit as the file's path and a short diff-like body", async () => {
    const write = line("tool_call", JSON.stringify({ path: "src/slug.js", content: "export const a = 1\nexport const b = 2\n" }), 0, "write")
    const edit = line("tool_call", JSON.stringify({ file_path: "README.md", old_string: "old line", new_string: "new line" }), 0, "Edit")
    const html = await render([write, edit])
    assert.deepStrictEqual(texts(html, "tool-path"), ["src/slug.js", "README.md"])
    assert.include(rowHtml(html, write.seq), '<span class="diff-add">+ export const a = 1\n</span><span class="diff-add">+ export const b = 2\n</span>')
    assert.include(rowHtml(html, edit.seq), '<span class="diff-del">- old line\n</span><span class="diff-add">+ new line\n</span>')
  })

  it("renders the agent's Markdown safely: bold is <strong>, HTML is text, only http(s) links, no images", async () => {
    const text = "Fixed **the bug**. <script>alert(1)</script> [bad](javascript:alert(2)) [mail](mailto:a@b.c) " +
      "[docs](https://example.com/x) ![pic](https://example.com/p.png) <img src=x onerror=alert(3)>\n\n- [x] done"
    const html = await render([line("assistant", text, 0)])
    assert.include(html, "<strong>the bug</strong>")
    assert.include(html, "&lt;script&gt;alert(1)&lt;/script&gt;")
    assert.notInclude(html, "<script")
    assert.notInclude(html, "<img")
    assert.notInclude(html, "javascript:")
    assert.notInclude(html, 'href="mailto:')
    assert.include(html, "bad")
    assert.include(html, '<a href="https://example.com/x" rel="nofollow noreferrer noopener">docs</a>')
    assert.include(html, "☑ done")
    assert.notInclude(html, "<input", "a task box is text, not an unlabelled control")
    assert.strictEqual(agentMarkdown("[x](JAVASCRIPT:alert(1))"), "<p>x</p>")
  })

  it("renders plain text without micromark exactly as micromark would", () => {
    const alphabet = "ab c.,-+=():;'\"?/0123456789%$^{}\t\u00e9\u00a0"
    const options = { extensions: [gfm(), { disable: { null: ["labelStartImage"] } }], htmlExtensions: [gfmHtml()] }
    let state = 7
    const random = () => (state = (state * 48271) % 2147483647) / 2147483647
    for (let n = 0; n < 1_500; n++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("")
      assert.strictEqual(agentMarkdown(text), micromark(text, options), JSON.stringify(text))
    }
  }, 30_000)

  it("shows verification as pass or fail per command with its output folded, and marks operators and judges", async () => {
    const pass = line("verify", "pass (round 1, exit 0): npm test\nok 1", 0)
    const fail = line("verify", "fail (round 1, exit 2): npm run lint\nerror: x", 0)
    const operator = line("operator", "please also update the README", 0)
    const judge = line("system", "judge strict: feedback\nThe README is not updated.", 0)
    const html = await render([pass, fail, operator, judge])
    assert.deepStrictEqual(texts(html, "verdict"), ["pass", "fail", "feedback"])
    assert.deepStrictEqual(texts(html, "tool-command"), ["npm test", "npm run lint"])
    assert.match(rowHtml(html, fail.seq), /<details class="fold"><summary>output · 1 lines<\/summary><pre[^>]*>error: x<\/pre>/)
    assert.deepStrictEqual(texts(html, "row-author"), ["operator", "judge strict"])
  })

  it("streams a row as the markup the page renders, so the script's pairing gives the page's own HTML", async () => {
    const call = line("tool_call", "ls", 0, "bash")
    const result = line("tool_result", "a\nb", 40, "bash")
    const paired = rowHtml(await render([call, result]), call.seq)
    const lone = await transcriptRowHtml(call)
    const answer = await transcriptRowHtml(result)
    // What boardScript's `place` does: the result goes into the call's results list, the call stops waiting.
    const joined = lone
      .replace(' data-pending=""', "")
      .replace('<ol class="tool-results"></ol>', `<ol class="tool-results">${answer}</ol>`)
      .replace('data-testid="tool-duration"></span>', 'data-testid="tool-duration">40 ms</span>')
    assert.strictEqual(joined, paired)
  })
})
