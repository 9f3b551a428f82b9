import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { Console, Effect } from "effect"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { startModelSim } from "@usine/model-sim/startModelSim"
import { demoModelScripts } from "./demoModelScripts"

const PI_PACKAGE = "@mariozechner/pi-coding-agent"

/**
 * The real Pi CLI, installed with usine, started with this Node. Looked up in the `node_modules` folders Node searches
 * from here (the app's in a clone, the package's own or the project's once installed, ADR 0095); the package's
 * exports name neither its CLI nor its package.json, so the file is found by path rather than resolved.
 */
export const PI_CLI = join(
  (createRequire(import.meta.url).resolve.paths(PI_PACKAGE) ?? []).map((modules) => join(modules, PI_PACKAGE)).find(existsSync) ??
    join("node_modules", PI_PACKAGE),
  "dist",
  "cli.js"
)

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
