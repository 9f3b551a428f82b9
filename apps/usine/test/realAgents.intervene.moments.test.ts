import { describe, it } from "@effect/vitest"
import { PI_CLI } from "../src/demo/demoAgents"
import { interveneDuringToolCall } from "./realAgents/interveneMoments"

describe("Intervene reaches the real Pi CLI whenever it is sent (issue 32)", () => {
  it.scopedLive(
    "during a slow tool call, three Runs at once: delivered or queued in Pi, in the next model request, each Run Succeeded",
    () => interveneDuringToolCall({ command: [process.execPath, PI_CLI], count: 3, seconds: 5 }),
    240_000
  )
})
