import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Console, Effect } from "effect"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { startModelSim } from "@usine/model-sim/startModelSim"
import { demoModelScripts } from "./demoModelScripts"

/** The real Pi CLI, installed with usine (`@mariozechner/pi-coding-agent`), started with this Node. */
export const PI_CLI = fileURLToPath(new URL("../../node_modules/@mariozechner/pi-coding-agent/dist/cli.js", import.meta.url))

/** Which agent the demo's Loops run: the real Pi CLI on scripted models, or the scripted stand-in (`demo/agent.mjs`). */
type DemoAgentChoice = "pi" | "script"

/** The demo's Agents as its usine.yaml declares them. */
export type DemoAgents =
  | {
      readonly _tag: "Pi"
      readonly command: ReadonlyArray<string>
      /** The model endpoint behind the bug-fixing Agent, and behind the feature Agent. */
      readonly bugs: string
      readonly features: string
    }
  | { readonly _tag: "Script" }

const scriptedModel = (script: ModelScript) =>
  Effect.acquireRelease(
    Effect.promise(() => startModelSim(script)),
    (sim) => Effect.promise(() => sim.close())
  )

/**
 * The demo's Agents for the scope: with Pi, one scripted model server per Loop on 127.0.0.1 (the same server would
 * answer both issues with one script), closed with the scope. Without the Pi CLI, the scripted stand-in, said once.
 */
export const demoAgents = (choice: DemoAgentChoice) =>
  Effect.gen(function* () {
    if (choice === "script") return { _tag: "Script" } satisfies DemoAgents
    if (!existsSync(PI_CLI)) {
      yield* Console.log(`The Pi CLI is not installed (${PI_CLI}): the demo runs its scripted stand-in agent instead.`)
      return { _tag: "Script" } satisfies DemoAgents
    }
    const bugs = yield* scriptedModel(demoModelScripts.fixPunctuation)
    const features = yield* scriptedModel(demoModelScripts.addDeslugify)
    return { _tag: "Pi", command: [process.execPath, PI_CLI], bugs: bugs.baseUrl, features: features.baseUrl } satisfies DemoAgents
  })
