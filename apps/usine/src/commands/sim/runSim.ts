import { Console, Context, Effect, Layer } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { startupFailed } from "../../daemon/startupFailed"
import { DEMO_REPOSITORY, seedDemo } from "../../demo/seedDemo"

/** What `usine sim` does once its options are parsed; loaded by the command only when it runs (ADR 0095). */
export const runSim = (options: { readonly port: number; readonly seedDemo: boolean }) =>
  Effect.gen(function* () {
    const emulator = Context.get(yield* Layer.build(GitHubSim.layer({ port: options.port })), GitHubSim)
    const token = options.seedDemo
      ? yield* seedDemo(emulator.control)
      : (yield* emulator.control.createUser({ login: "usine", permission: "write" })).token
    yield* Console.log(
      [
        `GitHub emulator at ${emulator.url}`,
        `token  ${token}`,
        options.seedDemo ? `repository ${DEMO_REPOSITORY}, with issues` : `create repositories with POST ${emulator.url}/_sim/createRepository`,
        "",
        "In usine.yaml:",
        "github:",
        `  api_url: ${emulator.url}`,
        `  token: ${token}`,
        "",
        "Ctrl-C stops it; its repositories are removed."
      ].join("\n")
    )
    return yield* Effect.never
  }).pipe(Effect.scoped, Effect.catchAll(startupFailed("sim")))
