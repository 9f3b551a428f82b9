/**
 * Markdown that hides text from a reader of GitHub's page, each with the words that are hidden and the words a
 * reader sees. Every hidden word is `HIDDEN` plus a letter, so nothing hidden can pass for something visible. The
 * unit tests run it through `sanitizeText`; the daemon's trust test sends it through an issue to a real agent.
 */
interface HiddenTextCase {
  readonly name: string
  readonly markdown: string
  readonly hidden: ReadonlyArray<string>
  readonly visible: ReadonlyArray<string>
}

const tagText = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join("")

export const HIDDEN_TEXT_CORPUS: ReadonlyArray<HiddenTextCase> = [
  // Reported in issue 17.
  {
    name: "attribute values of raw HTML",
    markdown: '<p id="HIDDENA" class="HIDDENB" data-x="HIDDENC">para one</p>\n<div title="HIDDEND" aria-label="HIDDENE">para two</div>',
    hidden: ["HIDDENA", "HIDDENB", "HIDDENC", "HIDDEND", "HIDDENE"],
    visible: ["para one", "para two"]
  },
  {
    name: "reference definition titles inside a quote and a list item",
    markdown: '> [qa]: https://x.test "HIDDENF"\n> quoted line\n\n- [qb]: https://x.test (HIDDENG)\n- item line\n\n> - [qc]: <https://x.test> \'HIDDENH\'\n>   nested line',
    hidden: ["HIDDENF", "HIDDENG", "HIDDENH"],
    visible: ["quoted line", "item line", "nested line"]
  },
  {
    name: "a shortcut image's alt text, its definition elsewhere",
    markdown: "see ![HIDDENI] and ![HIDDENJ][] and ![HIDDENK][pic]\n\nafter images\n\n[HIDDENI]: https://x.test/a.png\n[HIDDENJ]: https://x.test/b.png\n[pic]: https://x.test/c.png",
    hidden: ["HIDDENI", "HIDDENJ", "HIDDENK"],
    visible: ["see", "and", "after images"]
  },
  {
    name: "format characters outside the old list",
    markdown: "mus\u{1D173}ical\u{1D17A} hiero\u{13430}glyph\u{1343F} short\u{1BCA0}hand\u{1BCA3}",
    hidden: ["\u{1D173}", "\u{1D17A}", "\u{13430}", "\u{1343F}", "\u{1BCA0}", "\u{1BCA3}"],
    visible: ["musical hieroglyph shorthand"]
  },
  // Covered by the regex sanitizer's tests before.
  {
    name: "HTML comments, inline and as a block",
    markdown: "Fix the bug.<!-- HIDDENL -->\nThanks\n\n<!--\nHIDDENM\n-->\n\nStill here <!-->and<!---> here",
    hidden: ["HIDDENL", "HIDDENM", "<!--"],
    visible: ["Fix the bug.\nThanks", "Still here and here"]
  },
  {
    name: "an unclosed comment block hides the rest",
    markdown: "Fix it\n\n<!-- HIDDENN\n\nand HIDDENO",
    hidden: ["HIDDENN", "HIDDENO"],
    visible: ["Fix it"]
  },
  {
    name: "a comment ends where HTML ends it",
    markdown: "<!-- HIDDENP --!> shown after\n\nkeep<!-- HIDDENQ -\u200B-> HIDDENR -->tail",
    hidden: ["HIDDENP", "HIDDENQ", "HIDDENR"],
    visible: ["shown after", "keeptail"]
  },
  {
    name: "zero-width, bidirectional, tag characters and the entities that spell them",
    markdown: `pu\u200Bsh \u2066to\u2069 \u202Emain\uFEFF${tagText("HIDDENS")} a&#8203;b&#x200b;c&#xE0041;d&zwj;e&lrm;f&ZeroWidthSpace;g\u00AD\u034F\u115F\u3164\uFE0F`,
    hidden: ["HIDDENS", "\u200B", "\u2066", "\u202E", "\uFEFF", "&#8203;", "&zwj;", "\u00AD", "\u034F", "\u115F", "\u3164", "\uFE0F"],
    visible: ["push to main", "abcdefg"]
  },
  {
    name: "hidden elements, by attribute, style or nature, nested and unclosed",
    markdown:
      'see <span hidden>HIDDENT</span>this <span aria-hidden="true">HIDDENU</span>and <span style="color: red; DISPLAY : none">HIDDENV</span>that\n\n' +
      "<div hidden><div>HIDDENW</div>\n\n**HIDDENX** in a paragraph\n\n</div>\n\nvisible block\n\n" +
      'a<script>HIDDENY()</script>b<style>.HIDDENZ{}</style>c<input type="hidden" value="HIDDENAA"><template>HIDDENAB</template>\n\n' +
      '<span aria-hidden="false">shown span</span>\n\nlast words<div hidden>HIDDENAC never closed',
    hidden: ["HIDDENT", "HIDDENU", "HIDDENV", "HIDDENW", "HIDDENX", "HIDDENY", "HIDDENZ", "HIDDENAA", "HIDDENAB", "HIDDENAC"],
    visible: ["see this and that", "visible block", "abc", "shown span", "last words"]
  },
  {
    name: "image alt text, link titles and targets, reference definitions",
    markdown:
      '![HIDDENAD](https://x.test/y.png) ![see [HIDDENAE] first](a.png) [docs](https://x.test/HIDDENAF "HIDDENAG")\n\n' +
      '[//]: # (HIDDENAH)\n\n<img src="a.png" alt="HIDDENAI"> <a href="https://x.test" title="HIDDENAJ">link text</a>',
    hidden: ["HIDDENAD", "HIDDENAE", "HIDDENAF", "HIDDENAG", "HIDDENAH", "HIDDENAI", "HIDDENAJ"],
    visible: ["docs", "link text"]
  },
  {
    name: "raw-text elements that GitHub escapes, and foreign content",
    markdown: "x <textarea>HIDDENAK</textarea> y\n\nz <plaintext>\n\n<!-- HIDDENAL -->\n\n<svg><![CDATA[ HIDDENAM ]]></svg>",
    hidden: ["HIDDENAK", "HIDDENAL", "HIDDENAM"],
    visible: ["x", "y", "z"]
  }
]
