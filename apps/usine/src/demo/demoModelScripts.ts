import type { ModelScript } from "@usine/model-sim/ModelScript"

/** The agent commits as itself; the worktree has no identity of its own, and the daemon's user may have none. */
const commit = (title: string) =>
  `node --test && git add -A && git -c user.name="Pi (usine demo)" -c user.email=pi@usine.invalid commit -qm "${title}" && git log --oneline -1`

const KEEPS_DIGITS = `test("keeps digits", () => {
  assert.equal(slugify("Top 10 tips"), "top-10-tips")
})
`

/** Issue #1: a regression test first, watched failing, then the fix, the suite and a commit. */
const fixPunctuation: ModelScript = {
  turns: [
    {
      edit: "test/slugify.test.js",
      oldText: KEEPS_DIGITS,
      newText: `${KEEPS_DIGITS}
test("drops punctuation and collapses separators", () => {
  assert.equal(slugify("Hello, World!"), "hello-world")
  assert.equal(slugify("  Spaces   everywhere  "), "spaces-everywhere")
})
`,
      usage: { input: 2100, output: 120 }
    },
    { run: "node --test", usage: { input: 2600, output: 20, cached: 2000 } },
    {
      edit: "src/slugify.js",
      oldText: `/** Turns a title into a URL slug: its words in lowercase, joined by dashes. */
export const slugify = (title) => title.toLowerCase().split(" ").join("-")`,
      newText: `/** Turns a title into a URL slug: its letters and digits in lowercase, each run of anything else one dash. */
export const slugify = (title) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")`,
      usage: { input: 3300, output: 140, cached: 2500 }
    },
    { run: commit("Strip punctuation in slugify"), usage: { input: 3700, output: 60, cached: 3200 } },
    {
      say:
        "slugify now keeps only letters and digits and turns each run of anything else into one dash, trimmed at both " +
        "ends. A regression test covers the reported case; the suite passes and the change is committed.",
      usage: { input: 3900, output: 60, cached: 3600 }
    }
  ]
}

/** Issue #2: the function and its tests, the suite and a commit. */
const addDeslugify: ModelScript = {
  turns: [
    {
      write: "src/deslugify.js",
      content: `/** Turns a slug back into a readable title: dashes become spaces, the first letter is capitalized. */
export const deslugify = (slug) => {
  const words = slug.split("-").filter((word) => word !== "").join(" ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}
`,
      usage: { input: 2000, output: 110 }
    },
    {
      write: "test/deslugify.test.js",
      content: `import assert from "node:assert/strict"
import { test } from "node:test"
import { deslugify } from "../src/deslugify.js"

test("turns dashes into spaces and capitalizes the first word", () => {
  assert.equal(deslugify("release-notes"), "Release notes")
})

test("ignores doubled and trailing dashes", () => {
  assert.equal(deslugify("top--10-tips-"), "Top 10 tips")
})
`,
      usage: { input: 2400, output: 130, cached: 1900 }
    },
    { run: commit("Add deslugify"), usage: { input: 2900, output: 60, cached: 2300 } },
    {
      say: "Added src/deslugify.js with two tests (a plain slug, doubled and trailing dashes); the suite passes and the change is committed.",
      usage: { input: 3100, output: 40, cached: 2800 }
    }
  ]
}

/** What the scripted model says behind each of the demo's Pi Agents: one knows the bug, the other the feature. */
export const demoModelScripts = { fixPunctuation, addDeslugify } as const
