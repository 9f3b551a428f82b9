import { dirname } from "node:path"
import { FileSystem } from "@effect/platform"
import { Console, Data, Effect, Option } from "effect"
import { startupFailed } from "../../daemon/startupFailed"
import { loadConfig } from "../../loadConfig"
import { platformManager, serviceManagers } from "../../service/ServiceManager"
import { serviceSpec } from "../../service/ServiceSpec"

/** A unit name systemd and launchd both take as it is. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

class ServiceNameInvalid extends Data.TaggedError("ServiceNameInvalid")<{ readonly name: string }> {
  override get message() {
    return `--name ${JSON.stringify(this.name)}: use letters, digits, '_', '.' and '-'`
  }
}

interface Target {
  readonly name: string
  readonly manager: Option.Option<"systemd" | "launchd">
}

const managerOf = ({ name, manager }: Target) =>
  NAME.test(name)
    ? Effect.succeed(serviceManagers[Option.getOrElse(manager, () => platformManager(process.platform))])
    : Effect.fail(new ServiceNameInvalid({ name }))

/**
 * What `usine service install` does once its options are parsed (loaded only when it runs, ADR 0095): checks the
 * usine.yaml, then writes (or with `--print` prints) the unit for the Node and the bin running now, and says how to
 * start it. An existing file of the same name is replaced: installing again after an upgrade is the way to refresh it.
 */
export const runServiceInstall = (options: Target & { readonly config: string; readonly print: boolean }) =>
  Effect.gen(function* () {
    const manager = yield* managerOf(options)
    const config = yield* loadConfig(options.config)
    const env = process.env
    const spec = serviceSpec({
      name: options.name,
      configFile: options.config,
      config,
      node: process.execPath,
      bin: process.argv[1] ?? "usine",
      path: env["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    })
    const text = manager.render(spec, env)
    if (options.print) return yield* Effect.sync(() => process.stdout.write(text))
    const fs = yield* FileSystem.FileSystem
    const file = manager.file(env, options.name)
    const existed = yield* fs.exists(file)
    for (const folder of [dirname(file), ...manager.folders(env, options.name)]) yield* fs.makeDirectory(folder, { recursive: true })
    yield* fs.writeFileString(file, text)
    yield* Console.log([`${existed ? "replaced" : "wrote"} ${file}`, ...manager.afterInstall(file, options.name, env)].join("\n"))
  }).pipe(Effect.catchAll(startupFailed("service install")))

/** What `usine service uninstall` does: removes the unit and what the manager linked to it, and says how to stop it. */
export const runServiceUninstall = (options: Target) =>
  Effect.gen(function* () {
    const manager = yield* managerOf(options)
    const fs = yield* FileSystem.FileSystem
    const env = process.env
    const file = manager.file(env, options.name)
    if (!(yield* fs.exists(file))) return yield* Console.log(`${file} does not exist: nothing to remove`)
    for (const path of [file, ...manager.leftovers(env, options.name)]) yield* fs.remove(path, { force: true })
    yield* Console.log([`removed ${file}`, ...manager.afterUninstall(options.name)].join("\n"))
  }).pipe(Effect.catchAll(startupFailed("service uninstall")))
