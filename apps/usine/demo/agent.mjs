#!/usr/bin/env node
// The demo's stand-in agent (`usine demo --agent script`, or when the Pi CLI is missing): a script in place of a
// coding-agent CLI, so the demo runs offline with no model and no key.
// usine starts it like any `command` Agent: the prompt on stdin (and in $USINE_PROMPT_FILE), the Attempt's worktree
// as its working directory. It knows the two tasks of the demo's issues, makes the real change, runs the project's
// tests and commits; usine then pushes the branch and opens the pull request. Every line it prints is a transcript row.
import { spawnSync } from "node:child_process"
import { appendFileSync, readFileSync, writeFileSync } from "node:fs"

const say = (line) => process.stdout.write(`${line}\n`)

const readPrompt = () => {
  const file = process.env.USINE_PROMPT_FILE
  try {
    return readFileSync(file ?? 0, "utf8")
  } catch {
    return readFileSync(0, "utf8")
  }
}

/** Runs the project's tests and prints their summary; true when they pass. */
const runTests = () => {
  say("$ node --test")
  const result = spawnSync(process.execPath, ["--test"], { encoding: "utf8" })
  const summary = `${result.stdout}${result.stderr}`
    .split("\n")
    .filter((line) => /^# (tests|pass|fail)|^not ok/.test(line))
  for (const line of summary) say(`  ${line}`)
  return result.status === 0
}

// Commits go under the clone's identity, as a real agent's do (usine sets it: usine-agent, or a GitHub App's bot);
// a clone without one gets the demo agent's.
const identity =
  spawnSync("git", ["config", "user.email"], { encoding: "utf8" }).status === 0
    ? []
    : ["-c", "user.name=usine demo agent", "-c", "user.email=demo-agent@usine.invalid"]

const git = (...args) => {
  const result = spawnSync("git", [...identity, ...args], { encoding: "utf8" })
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.trim()}`)
  return result.stdout.trim()
}

const tasks = [
  {
    name: "fix slugify's punctuation",
    matches: /punctuation/i,
    title: "Strip punctuation in slugify",
    steps: [
      () => {
        say("adding a regression test for the reported case first")
        appendFileSync(
          "test/slugify.test.js",
          `
test("drops punctuation and collapses separators", () => {
  assert.equal(slugify("Hello, World!"), "hello-world")
  assert.equal(slugify("  Spaces   everywhere  "), "spaces-everywhere")
})
`
        )
        if (runTests()) throw new Error("the new test passes before the fix: the bug is not where the issue says")
        say("the new test fails as the issue describes; fixing src/slugify.js")
      },
      () =>
        writeFileSync(
          "src/slugify.js",
          `/** Turns a title into a URL slug: its letters and digits in lowercase, each run of anything else one dash. */
export const slugify = (title) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
`
        )
    ]
  },
  {
    name: "add deslugify",
    matches: /deslugify/i,
    title: "Add deslugify",
    steps: [
      () => {
        say("writing src/deslugify.js and its test")
        writeFileSync(
          "src/deslugify.js",
          `/** Turns a slug back into a readable title: dashes become spaces, the first letter is capitalized. */
export const deslugify = (slug) => {
  const words = slug.split("-").filter((word) => word !== "").join(" ")
  return words.charAt(0).toUpperCase() + words.slice(1)
}
`
        )
        writeFileSync(
          "test/deslugify.test.js",
          `import assert from "node:assert/strict"
import { test } from "node:test"
import { deslugify } from "../src/deslugify.js"

test("turns dashes into spaces and capitalizes the first word", () => {
  assert.equal(deslugify("release-notes"), "Release notes")
})

test("ignores doubled and trailing dashes", () => {
  assert.equal(deslugify("top--10-tips-"), "Top 10 tips")
})
`
        )
      }
    ]
  }
]

const main = () => {
  const prompt = readPrompt()
  say(`task: ${prompt.trim().split("\n")[0] ?? ""}`)
  const task = tasks.find((candidate) => candidate.matches.test(prompt))
  if (task === undefined) {
    say("this demo agent only knows the demo's two issues (slugify's punctuation, deslugify); giving up")
    process.exit(1)
  }
  say(`plan: ${task.name}`)
  for (const step of task.steps) step()
  if (!runTests()) {
    say("the tests fail after the change; stopping without a commit")
    process.exit(1)
  }
  git("add", "-A")
  git("commit", "--quiet", "-m", task.title)
  say(`committed ${git("rev-parse", "--short", "HEAD")}: ${task.title}`)
}

try {
  main()
} catch (error) {
  say(`error: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
