import type { DemoAgents } from "./demoAgents"
import { DEMO_ISSUES, DEMO_REPOSITORY } from "./seedDemo"

/** What the demo prints once it is up: where the Board is and what to click. */
export const demoBanner = (options: {
  readonly boardUrl: string
  readonly simUrl: string
  readonly autoApprove: boolean
  readonly exitAfter: number | undefined
  readonly agent: DemoAgents["_tag"]
}): string => {
  const [bug, feature, idea] = DEMO_ISSUES
  const approval = options.autoApprove
    ? `#1 "${bug.title}" waits for approval; --auto-approve approves it for you.`
    : `Needs you (${options.boardUrl}) shows #1 "${bug.title}" waiting for approval: press Approve.`
  return [
    "",
    "usine demo is running, offline:",
    `  board   ${options.boardUrl}`,
    `  GitHub  an emulator at ${options.simUrl} with ${DEMO_REPOSITORY} (a tiny Node project and its tests)`,
    options.agent === "Pi"
      ? "  agent   the real Pi coding agent, its model a scripted server on 127.0.0.1: it edits, runs the tests and commits"
      : "  agent   a scripted stand-in for a coding agent: it makes the change, runs the tests and commits",
    "",
    "What to look at:",
    ` 1. Runs (${options.boardUrl}runs): #2 "${feature.title}" starts by itself (its Loop has approval: none).`,
    "    Open the Run to follow the agent's transcript live, then the pull request usine opened for it.",
    ` 2. ${approval}`,
    ` 3. Board (${options.boardUrl}board): #3 "${idea.title}" sits in Ideas; no Loop acts on it.`,
    ` 4. Loops (${options.boardUrl}loops): pause a Loop and see polling leave it alone.`,
    "",
    options.exitAfter === undefined
      ? "Press Ctrl-C to stop: running agents finish first (press it again to stop waiting)."
      : `The demo stops once ${options.exitAfter} pull request${options.exitAfter === 1 ? " is" : "s are"} open.`,
    ""
  ].join("\n")
}
