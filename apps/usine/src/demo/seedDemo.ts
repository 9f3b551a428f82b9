import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import type { SimControl } from "@usine/github-sim/control/SimControl"

/** The demo's repository on the emulator. */
export const DEMO_REPOSITORY = "demo/slugger"

/** A tiny Node project with a `node --test` suite: what the demo's agent works on. */
const SAMPLE_REPOSITORY_DIR = fileURLToPath(new URL("../../demo/sample-repo", import.meta.url))

/** The stand-in agent the demo's Loops run with `--agent script` (harness `command`); by default they run Pi. */
export const DEMO_AGENT = fileURLToPath(new URL("../../demo/agent.mjs", import.meta.url))

/** The demo's issues: one for the Loop that waits for approval, one for the Loop that does not, one for neither. */
export const DEMO_ISSUES = [
  {
    title: "slugify keeps punctuation",
    body: '`slugify("Hello, World!")` returns `hello,-world!`; it should return `hello-world`.\n\n' +
      "Only letters and digits should survive, and each run of anything else should become one dash.",
    labels: ["bug", "ready-for-agent"]
  },
  {
    title: "Add deslugify",
    body: 'A `deslugify("release-notes")` that gives back `Release notes`, with tests.',
    labels: ["enhancement", "ready-for-agent"]
  },
  {
    title: "Support titles in other scripts",
    body: "`slugify` drops every letter outside a-z. Should it transliterate?",
    labels: ["question"]
  }
] as const

/**
 * The demo's world on an emulator: the account usine works as, `demo/slugger` seeded from the sample repository, and
 * its issues. Returns the account's token.
 */
export const seedDemo = Effect.fn("seedDemo")(function* (control: SimControl) {
  const account = yield* control.createUser({ login: "usine-demo", permission: "write" })
  const [owner = "", name = ""] = DEMO_REPOSITORY.split("/")
  yield* control.createRepository({
    owner,
    name,
    description: "Turns titles into URL slugs",
    seedDirectory: SAMPLE_REPOSITORY_DIR
  })
  for (const issue of DEMO_ISSUES) {
    yield* control.createIssue({ repo: DEMO_REPOSITORY, title: issue.title, body: issue.body, labels: issue.labels })
  }
  return account.token
})
