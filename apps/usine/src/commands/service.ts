import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { configOption } from "./up"

const nameOption = Options.text("name").pipe(
  Options.withDescription("the unit's name (systemd: <name>.service; launchd: local.usine.<name>), one per usine.yaml"),
  Options.withDefault("usine")
)

const managerOption = Options.choice("manager", ["systemd", "launchd"]).pipe(
  Options.withDescription("the service manager; the platform's when left out (launchd on macOS, systemd elsewhere)"),
  Options.optional
)

const runService = () => Effect.promise(() => import("./service/runService"))

/** `usine service install`: writes a systemd user unit or a launchd agent that runs `usine up` on this usine.yaml. */
const install = Command.make(
  "install",
  {
    config: configOption,
    name: nameOption,
    manager: managerOption,
    print: Options.boolean("print").pipe(Options.withDescription("print the file instead of writing it"))
  },
  (options) => Effect.flatMap(runService(), ({ runServiceInstall }) => runServiceInstall(options))
).pipe(Command.withDescription("Write a systemd user unit (launchd agent on macOS) that runs usine up, restarted on failure, drained on stop."))

/** `usine service uninstall`: removes the file `install` wrote (and systemd's enablement link). */
const uninstall = Command.make("uninstall", { name: nameOption, manager: managerOption }, (options) =>
  Effect.flatMap(runService(), ({ runServiceUninstall }) => runServiceUninstall(options))
).pipe(Command.withDescription("Remove the unit or agent that usine service install wrote."))

export const service = Command.make("service").pipe(
  Command.withSubcommands([install, uninstall]),
  Command.withDescription("Run usine up as a service: a systemd user unit or a launchd agent.")
)
