import { fileURLToPath } from "node:url"
import { describe, it } from "@effect/vitest"
import { steeredThroughRestart } from "./realAgents/steeredThroughRestart"

/** The real Claude Code CLI (`@anthropic-ai/claude-code`, a dev dependency): its launcher is the native binary. */
const CLAUDE = fileURLToPath(new URL("../node_modules/.bin/claude", import.meta.url))

describe("Intervene reaches the real Claude Code CLI mid-Attempt, also after a daemon restart", () => {
  it.scopedLive(
    "a message during a slow tool call is replayed (its acknowledgment) and in the next model request; after SIGKILL and restart a second one too",
    () =>
      steeredThroughRestart({
        harness: "claude",
        command: [CLAUDE],
        agentEnv: { CLAUDE_CODE_MAX_RETRIES: "1" },
        acknowledged: "claude took the operator's message",
        midToolCall: "queued"
      }),
    300_000
  )
})
