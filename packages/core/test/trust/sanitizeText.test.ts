import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { sanitizeText } from "@usine/core/trust/sanitizeText"
import { isInvisible, stripInvisible } from "@usine/core/trust/stripInvisible"
import { HIDDEN_TEXT_CORPUS } from "./hiddenTextCorpus"

const hasInvisible = (text: string) => [...text].some((c) => isInvisible(c.codePointAt(0)!))

describe("sanitizeText: the hidden-text corpus", () => {
  for (const entry of HIDDEN_TEXT_CORPUS) {
    it(entry.name, () => {
      const seen = sanitizeText(entry.markdown)
      for (const hidden of entry.hidden) assert.notInclude(seen, hidden, `hidden ${JSON.stringify(hidden)} reached:\n${seen}`)
      for (const visible of entry.visible) assert.include(seen, visible, `visible ${JSON.stringify(visible)} lost:\n${seen}`)
      assert.isFalse(hasInvisible(seen))
    })
  }
})

describe("sanitizeText: what a reader sees, as Markdown-ish text", () => {
  it("keeps headings, lists, quotes, code and tables in shape; links keep their text", () => {
    const text = "# Bug\n\nSteps:\n1. run `pnpm test`\n2. see [the log](https://example.com/log)\n\n" +
      "> quoted\n> - in a list\n\n- [ ] todo\n  - nested\n\n| a | b |\n|---|---|\n| 1 | x\\|y |\n\n" +
      "```ts\nconst m: Map<string, number> = new Map()\nif (a < b && c > d) {}\n```\n"
    assert.strictEqual(
      sanitizeText(text),
      "# Bug\n\nSteps:\n\n1. run `pnpm test`\n2. see the log\n\n> quoted\n>\n> - in a list\n\n- [ ] todo\n  - nested\n\n" +
        "| a | b |\n| --- | --- |\n| 1 | x\\|y |\n\n```\nconst m: Map<string, number> = new Map()\nif (a < b && c > d) {}\n```"
    )
  })

  it("shows what GitHub shows as text: entities decoded, markup that is not HTML, code that holds markup", () => {
    assert.strictEqual(sanitizeText("5 &lt; 6 &amp;&#65;&copy;"), "5 < 6 &A©")
    assert.strictEqual(sanitizeText("Fix it <!-- no closer on this line"), "Fix it <!-- no closer on this line", "an inline comment needs its closer")
    assert.strictEqual(sanitizeText("body\n[//]: # (a definition cannot interrupt a paragraph)"), "body\n[//]: # (a definition cannot interrupt a paragraph)")
    assert.strictEqual(sanitizeText("`<!-- shown -->` and\n\n```html\n<div hidden>shown</div>\n```"), "`<!-- shown -->` and\n\n```\n<div hidden>shown</div>\n```")
    assert.strictEqual(sanitizeText("![no definition]"), "![no definition]")
    assert.strictEqual(sanitizeText("tab\tline\r\nend\u0007"), "tab\tline\nend")
    assert.strictEqual(sanitizeText("<details><summary>Logs</summary>\n\n```\nerr\n```\n\n</details>"), "Logs\n\n```\nerr\n```")
    assert.strictEqual(sanitizeText("a\n\n<br>\n\n"), "a")
  })

  it("a code span or block that holds backticks keeps a fence that still closes it", () => {
    assert.strictEqual(sanitizeText("`` a`b ``"), "``a`b``")
    assert.strictEqual(sanitizeText("````\n```\n````"), "````\n```\n````")
    assert.include(sanitizeText(`\`\`\`\`\n${"` ".repeat(40_000)}\n\`\`\`\``), "` `", "a block of many short runs")
  })

  it("stripInvisible removes Cf, Default_Ignorable and control characters, keeping tab and line breaks", () => {
    assert.strictEqual(stripInvisible("a\u200Bb\u{1D173}c\u{E0041}d\uFE0Fe\u0007f\t\n\r\uD800"), "abcdef\t\n\r")
    assert.isTrue([0x00ad, 0x061c, 0x180e, 0x2060, 0x1d17a, 0x13430, 0x1bca3, 0xe0001, 0xe01ef].every(isInvisible))
    assert.isFalse([0x41, 0x09, 0x0a, 0x20, 0xa0, 0x1f600].some(isInvisible))
  })
})

describe("sanitizeText: hostile input", () => {
  it("stays fast on input the size of GitHub's largest body", () => {
    const size = 65_536
    const hostile = [
      "![", "<a b ", "](x \"", "[x]: ", "<!-- ", "<div hidden><div>", '<img alt="x" ', "&#8203;", "<!a ", "<![CDATA[",
      ">", "1. ", "> - ", "*a", "[", "[a](", "|a|\n", "a|b\n-|-\n", "<div>", "<span>", "<b><i>", "<table><tr>", "`", "\\"
    ]
    for (const unit of hostile) {
      const started = performance.now()
      sanitizeText(unit.repeat(Math.ceil(size / unit.length)))
      assert.isBelow(performance.now() - started, 5_000, unit)
    }
  }, 120_000)

  it("deep nesting is read without recursion past a bound, still hiding what is hidden", () => {
    const deep = `${"<div><span>".repeat(20_000)}deep text<span hidden>HIDDEN</span>`
    const seen = sanitizeText(deep)
    assert.include(seen, "deep text")
    assert.notInclude(seen, "HIDDEN")
    // markdown-it stops nesting at 100 and drops what lies deeper: less than a reader sees, never more.
    assert.strictEqual(sanitizeText(`before\n\n${">".repeat(500)} quoted deep`), "before")
  })

  it("properties: no invisible character and no word hidden by HTML survives, wherever it stands", () => {
    // HTML hides the same in every Markdown context but code; Markdown constructs depend on context (the corpus).
    const hiddenPieces = fc.constantFrom(
      "<!-- HIDDEN -->", "<span hidden>HIDDEN</span>", '<p title="HIDDEN">', '<img alt="HIDDEN">', "\u{E0048}\u{E0049}", "&#8203;"
    )
    const fillers = fc.constantFrom("<div>", "</div>", "<", ">", "a b", "\n", "\n\n", "- ", "> ", "*", "\u200B", "\u202E", "&#x202e;", "<!--", "-->")
    const text = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.array(fc.oneof(hiddenPieces, fillers), { maxLength: 40 }).map((parts) => parts.join(""))
    )
    fc.assert(
      fc.property(text, (input) => {
        const seen = sanitizeText(input)
        assert.isFalse(hasInvisible(seen))
        assert.notInclude(seen, "HIDDEN")
      }),
      { numRuns: 500 }
    )
  })
})
