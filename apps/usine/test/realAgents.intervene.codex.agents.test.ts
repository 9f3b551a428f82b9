import { fileURLToPath } from "node:url"
import { describe, it } from "@effect/vitest"
import { steeredThroughRestart } from "./realAgents/steeredThroughRestart"

/** The real Codex CLI (`@openai/codex`, a dev dependency): its npm launcher starts the native binary. */
const CODEX = fileURLToPath(new URL("../node_modules/.bin/codex", import.meta.url))

describe("Intervene reaches the real Codex CLI mid-Attempt, also after a daemon restart", () => {
  it.scopedLive(
    "a message during a slow tool call is answered by codex app-server (its acknowledgment) and in the next model request of the thread; after SIGKILL and restart a second one too",
    () =>
      steeredThroughRestart({
        harness: "codex",
        command: [CODEX],
        acknowledged: "codex took the operator's message",
        midToolCall: "queued"
      }),
    300_000
  )
})
