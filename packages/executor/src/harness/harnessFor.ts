import { ClaudeHarness } from "./ClaudeHarness"
import { CodexHarness } from "./CodexHarness"
import { CommandHarness } from "./CommandHarness"
import type { Harness } from "./Harness"
import { PiHarness } from "./PiHarness"

const harnesses: { readonly [K in Harness["name"]]: Harness } = {
  codex: CodexHarness,
  claude: ClaudeHarness,
  pi: PiHarness,
  command: CommandHarness
}

/** The harness an Agent's config names. */
export const harnessFor = (name: Harness["name"]): Harness => harnesses[name]
