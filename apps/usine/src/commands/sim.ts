import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { DEMO_REPOSITORY } from "../demo/seedDemo"

/** `usine sim`: the GitHub emulator on its own, until Ctrl-C; with `--seed-demo`, the demo's repository and issues. */
export const sim = Command.make(
  "sim",
  {
    port: Options.integer("port").pipe(Options.withDescription("the port on 127.0.0.1; 0 picks a free one"), Options.withDefault(0)),
    seedDemo: Options.boolean("seed-demo").pipe(Options.withDescription(`create ${DEMO_REPOSITORY} and the demo's issues`))
  },
  (options) => Effect.flatMap(Effect.promise(() => import("./sim/runSim")), ({ runSim }) => runSim(options))
).pipe(Command.withDescription("Run the GitHub emulator on its own (REST, GraphQL, git over HTTP, a control API)."))
