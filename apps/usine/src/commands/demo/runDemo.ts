import { FileSystem, Path } from "@effect/platform"
import { Console, Context, Effect, Layer, Option, Schedule } from "effect"
import { RunEngine } from "@usine/engine/RunEngine"
import { makeRedactor } from "@usine/core/text/Redactor"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { serveDaemon } from "../../daemon/serveDaemon"
import { planStartup } from "../../daemon/StartupPlan"
import { startupFailed } from "../../daemon/startupFailed"
import { autoApprove } from "../../demo/autoApprove"
import { demoAgents } from "../../demo/demoAgents"
import { demoBanner } from "../../demo/demoBanner"
import { demoConfig } from "../../demo/demoConfig"
import { openPullRequests } from "../../demo/openPullRequests"
import { DEMO_REPOSITORY, seedDemo } from "../../demo/seedDemo"
import { WorkerExecutorLayer } from "../../layers/WorkerExecutorLayer"
import { LoggingLayer } from "../../layers/LoggingLayer"

/** Asks the daemon to drain once `count` pull requests are open on the demo repository. */
const exitAfterPullRequests = (count: number) =>
  Effect.gen(function* () {
    const open = yield* openPullRequests(DEMO_REPOSITORY).pipe(Effect.orElseSucceed(() => []))
    if (open.length < count) return false
    yield* Console.log(
      `${open.length} pull request${open.length === 1 ? "" : "s"} open:\n${open.map((p) => `  #${p.number} ${p.title} ${p.url}`).join("\n")}`
    )
    yield* Effect.flatMap(RunEngine, (engine) => engine.requestShutdown)
    return true
  }).pipe(Effect.repeat({ schedule: Schedule.spaced("1 second"), until: (done) => done }), Effect.asVoid)

/** `--keep`: a new or empty folder, so the demo's ledger never mixes with an earlier emulator's Runs. */
const keptFolder = (folder: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    if ((yield* fs.exists(folder)) && (yield* fs.readDirectory(folder)).length > 0) {
      return yield* Effect.fail({ _tag: "DemoFolderNotEmpty", message: `--keep ${folder}: the folder is not empty; give a new or empty one` })
    }
    yield* fs.makeDirectory(folder, { recursive: true })
    return folder
  })

interface DemoOptions {
  readonly autoApprove: boolean
  readonly exitAfter: Option.Option<number>
  readonly port: number
  readonly keep: Option.Option<string>
  readonly agent: "pi" | "script"
}

/** What `usine demo` does once its options are parsed; loaded by the command only when it runs (ADR 0095). */
export const runDemo = (options: DemoOptions) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const folder = yield* Option.match(options.keep, {
      onNone: () => fs.makeTempDirectoryScoped({ prefix: "usine-demo-" }),
      onSome: (keep) => keptFolder(path.resolve(keep))
    })
    const sim = Context.get(yield* Layer.build(GitHubSim.layer()), GitHubSim)
    const token = yield* seedDemo(sim.control)
    const agents = yield* demoAgents(options.agent)
    const configFile = path.join(folder, "usine.yaml")
    yield* fs.writeFileString(
      configFile,
      demoConfig({ apiUrl: sim.url, token, boardPort: options.port, workspaces: path.join(folder, "workspaces"), agents })
    )
    const plan = yield* planStartup(configFile).pipe(
      Effect.mapError((error) =>
        error._tag === "BoardPortUnavailable"
          ? { _tag: error._tag, message: `the board cannot use port ${error.port} (${error.code}): pass --port with a free one` }
          : error
      )
    )
    const exitAfter = Option.getOrUndefined(options.exitAfter)
    yield* serveDaemon({
      plan,
      executor: WorkerExecutorLayer(plan),
      alongside: (services, boardUrl) =>
        Effect.all(
          [
            Console.log(demoBanner({ boardUrl, simUrl: sim.url, autoApprove: options.autoApprove, exitAfter, agent: agents._tag })),
            options.autoApprove ? autoApprove : Effect.void,
            exitAfter === undefined ? Effect.void : exitAfterPullRequests(exitAfter)
          ],
          { concurrency: "unbounded", discard: true }
        ).pipe(Effect.provide(services))
    }).pipe(
      Effect.provide(
        LoggingLayer({
          json: false,
          stdout: "warnings",
          folder: path.join(folder, "logs"),
          redact: makeRedactor(plan.secrets).redact
        })
      )
    )
  }).pipe(Effect.scoped, Effect.catchAll(startupFailed("demo")))
