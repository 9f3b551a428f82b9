import { Command, Options } from "@effect/cli"
import { Console, Context, Effect, Layer } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { startupFailed } from "../daemon/startupFailed"
import { DEMO_REPOSITORY, seedDemo } from "../demo/seedDemo"

/** `usine sim`: the GitHub emulator on its own, until Ctrl-C; with `--seed-demo`, the demo's repository and issues. */
export const sim = Command.make(
  "sim",
  {
    port: Options.integer("port").pipe(Options.withDescription("the port on 127.0.0.1; 0 picks a free one"), Options.withDefault(0)),
    seedDemo: Options.boolean("seed-demo").pipe(Options.withDescription(`create ${DEMO_REPOSITORY} and the demo's issues`))
  },
  (options) =>
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
).pipe(Command.withDescription("Run the GitHub emulator on its own (REST, GraphQL, git over HTTP, a control API)."))
