import { join } from "node:path"
import { Data } from "effect"
import type { Harness, StreamParser } from "./Harness"
import { processExitFailure } from "./processExitFailure"
import { truncate } from "./truncate"

/** The `command` harness was chosen without a command line; config validation should have refused it. */
export class MissingAgentCommand extends Data.TaggedError("MissingAgentCommand")<{}> {
  override get message() {
    return "the command harness needs the Agent's `command`"
  }
}

/** How many trailing output lines stand as evidence when the command fails. */
const TAIL_LINES = 20

/**
 * Any CLI: the Agent's argv, the prompt on stdin and in `<attemptDir>/prompt.md` (named by `USINE_PROMPT_FILE`),
 * each output line an `assistant` row. Its exit code is the only signal of failure.
 */
export const CommandHarness: Harness = {
  name: "command",
  invocation: (input) => {
    if (input.command === undefined || input.command.length === 0) throw new MissingAgentCommand()
    return {
      argv: input.command,
      env: { USINE_PROMPT_FILE: join(input.attemptDir, "prompt.md") },
      stdin: input.prompt,
      files: { "prompt.md": input.prompt }
    }
  },
  parser: () => commandParser(),
  exitFailure: processExitFailure,
  isStallLine: () => false,
  channel: { _tag: "Inbox" }
}

const commandParser = (): StreamParser => {
  const tail: Array<string> = []
  return {
    line: (raw, at) => {
      const text = raw.trimEnd()
      if (text.trim() === "") return []
      tail.push(truncate(text))
      if (tail.length > TAIL_LINES) tail.shift()
      return [{ kind: "assistant", text: truncate(text), at }]
    },
    failure: () => undefined,
    lastError: () => (tail.length === 0 ? undefined : truncate(tail.join("\n")))
  }
}
