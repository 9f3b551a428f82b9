import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { CommandFailed } from "../CommandFailed"
import { loadConfig } from "../loadConfig"

const failed = Effect.fail(new CommandFailed({ command: "check" }))

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

const summary = (config: UsineConfig) =>
  [
    count(config.loops.length, "loop"),
    count(config.repositories.length, "repository").replace(/ys$/, "ies"),
    count(Object.keys(config.agents).length, "agent"),
    count(Object.keys(config.workers).length, "worker")
  ].join(", ")

/** `usine check [path]`: exit 0 and a one-line summary for a valid file, exit 1 and every problem otherwise. */
export const check = Command.make(
  "check",
  {
    path: Args.text({ name: "path" }).pipe(
      Args.withDescription("the configuration file to check"),
      Args.withDefault("usine.yaml")
    )
  },
  ({ path }) =>
    loadConfig(path).pipe(
      Effect.flatMap((config) => Console.log(`ok: ${path} (${summary(config)})`)),
      Effect.catchTags({
        ConfigInvalid: (error) => Console.error(error.message).pipe(Effect.zipRight(failed)),
        ConfigUnreadable: (error) => Console.error(error.message).pipe(Effect.zipRight(failed))
      })
    )
).pipe(Command.withDescription("Check a usine.yaml: its schema, references, and every if:, prompt: and cron."))
