import { cpSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import type { ModelScript } from "@usine/model-sim/ModelScript"
import { type RunningModelSim, startModelSim } from "@usine/model-sim/startModelSim"
import { BOARD_TOKEN, REPOSITORY, SAMPLE_REPOSITORY } from "../support/daemonConfig"
import { freePort } from "../support/freePort"
import { scopedDir, scopedSim } from "../support/scopedSim"
import { startUsine } from "../support/UsineProcess"
import { ledgerRows } from "./LedgerRows"
import { type RealAgentLoop, realAgentsConfig } from "./realAgentsConfig"

/** The key the daemon holds for the scripted model; every Agent's `provider.api_key_env` names it. */
export const MODEL_KEY = "sim-key-5e7a91c2d4"

/** One Loop of the world: its own issue, its own Agent, and its own model (or an endpoint that refuses connections). */
interface Scenario {
  readonly name: string
  readonly title: string
  /** The scripted model behind the Agent; absent: a dead endpoint. */
  readonly script?: ModelScript
  /** This Loop's stall limit, where it is not the world's. */
  readonly stallMinutes?: number
  /** The Loop's `budget`, as a YAML flow mapping (`{run_tokens: 1000}`). */
  readonly budget?: string
  /** Its issue is opened without its label: the test labels it (`label`) when it wants the Run. */
  readonly deferred?: boolean
}

/** Pi's documented project settings, in the sample repository: one quick retry of its own instead of 3 + 2 per request. */
const PI_PROJECT_SETTINGS = { retry: { maxRetries: 1, baseDelayMs: 500, provider: { maxRetries: 0 } } }

const scopedModel = (script: ModelScript) =>
  Effect.acquireRelease(
    Effect.promise(() => startModelSim(script)),
    (sim) => Effect.promise(() => sim.close())
  )

/** A port that was just free: a model endpoint there refuses every connection. */
const deadEndpoint = Effect.map(freePort, (port) => `http://127.0.0.1:${port}/v1`)

/**
 * A real daemon (`usine up` as a child process) on the GitHub emulator, whose repository is the demo's sample
 * project, with one labelled issue per scenario already open, and the real agent CLI on a scripted model for each.
 * Everything (processes, servers, folders) goes with the scope.
 */
export const realAgentWorld = (options: {
  readonly harness: "pi" | "codex" | "claude"
  readonly command: ReadonlyArray<string>
  /** Fixed environment values every Agent gets (a CLI's documented retry setting). */
  readonly agentEnv?: Readonly<Record<string, string>>
  readonly scenarios: ReadonlyArray<Scenario>
  /** Every Loop's stall limit but where a scenario names its own. */
  readonly stallMinutes: number
  /** The daemon's `budget`, as a YAML flow mapping. */
  readonly budget?: string
  /** The Worker is `remote`, over ssh at this host, its root still `workspaces`; the daemon's own Worker otherwise. */
  readonly sshHost?: string
  /** Added to the daemon's environment (a `PATH` whose `ssh` reads the test's ssh config). */
  readonly daemonEnv?: Readonly<Record<string, string>>
  /** The provider's key the daemon holds; `MODEL_KEY` by default (a test that looks for it machine-wide picks its own). */
  readonly modelKey?: string
}) =>
  Effect.gen(function* () {
    const dir = yield* scopedDir
    const gitHub = yield* scopedSim
    const { token } = yield* Effect.promise(() => gitHub.control.createUser({ login: "usine-bot", permission: "write" }))
    const seed = join(dir, "seed")
    cpSync(SAMPLE_REPOSITORY, seed, { recursive: true })
    mkdirSync(join(seed, ".pi"))
    writeFileSync(join(seed, ".pi", "settings.json"), `${JSON.stringify(PI_PROJECT_SETTINGS, null, 2)}\n`)
    const [owner = "", name = ""] = REPOSITORY.split("/")
    yield* Effect.promise(() => gitHub.control.createRepository({ owner, name, seedDirectory: seed }))

    const models: Record<string, RunningModelSim> = {}
    const issues: Record<string, number> = {}
    const loops: Array<RealAgentLoop> = []
    for (const scenario of options.scenarios) {
      const model = scenario.script === undefined ? undefined : yield* scopedModel(scenario.script)
      if (model !== undefined) models[scenario.name] = model
      yield* Effect.promise(() => gitHub.control.createLabel({ repo: REPOSITORY, name: scenario.name }))
      const issue = yield* Effect.promise(() =>
        gitHub.control.createIssue({
          repo: REPOSITORY,
          title: scenario.title,
          body: "See the title.",
          labels: scenario.deferred === true ? [] : [scenario.name]
        })
      )
      issues[scenario.name] = issue.number
      loops.push({
        name: scenario.name,
        agent: `${options.harness}-${scenario.name}`,
        baseUrl: model?.baseUrl ?? (yield* deadEndpoint),
        stallMinutes: scenario.stallMinutes ?? options.stallMinutes,
        ...(scenario.budget === undefined ? {} : { budget: scenario.budget })
      })
    }

    const workspaces = join(dir, "workspaces")
    const boardPort = yield* freePort
    writeFileSync(
      join(dir, "usine.yaml"),
      realAgentsConfig({
        apiUrl: gitHub.url,
        token,
        boardPort,
        workspaces,
        harness: options.harness,
        command: options.command,
        ...(options.agentEnv === undefined ? {} : { agentEnv: options.agentEnv }),
        keyVariable: "USINE_TEST_MODEL_KEY",
        ...(options.budget === undefined ? {} : { budget: options.budget }),
        ...(options.sshHost === undefined ? {} : { sshHost: options.sshHost }),
        loops
      })
    )
    const usine = yield* startUsine(dir, ["up"], { ...options.daemonEnv, USINE_TEST_MODEL_KEY: options.modelKey ?? MODEL_KEY })
    const boardUrl = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
    return {
      dir,
      workspaces,
      gitHub: { url: gitHub.url, token, cloneUrl: gitHub.authenticatedCloneUrl(REPOSITORY, token) },
      boardUrl,
      boardToken: BOARD_TOKEN,
      usine,
      models,
      issues,
      /** Labels a deferred scenario's issue: its Loop takes it up at the next poll. */
      label: (name: string) =>
        Effect.promise(() => gitHub.control.addLabels({ repo: REPOSITORY, number: issues[name] ?? 0, labels: [name] })).pipe(Effect.asVoid),
      ledger: ledgerRows(join(dir, "state", "ledger.db"))
    }
  })

export type RealAgentWorld = Effect.Effect.Success<ReturnType<typeof realAgentWorld>>
