import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown } from "@effect/platform/Runtime"
import * as Effect from "effect/Effect"
import { version } from "../package.json"
import { audit } from "./commands/audit"
import { check } from "./commands/check"
import { demo } from "./commands/demo"
import { doctor } from "./commands/doctor"
import { init } from "./commands/init"
import { ledger } from "./commands/ledger"
import { service } from "./commands/service"
import { sim } from "./commands/sim"
import { status } from "./commands/status"
import { up } from "./commands/up"
import { reportFailure } from "./reportFailure"

const usine = Command.make("usine").pipe(Command.withSubcommands([up, demo, status, audit, check, init, sim, doctor, service, ledger]))

const cli = Command.run(usine, { name: "usine", version })

cli(process.argv).pipe(
  reportFailure,
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    // Exit as soon as the command is done: an idle keep-alive socket must not hold a drained daemon open.
    teardown: (exit, onExit) => defaultTeardown(exit, (code) => process.exit(code))
  })
)
