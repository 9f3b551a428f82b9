import { Console, Effect } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { CommandFailed } from "../../CommandFailed"
import { loadConfig } from "../../loadConfig"

const failed = Effect.fail(new CommandFailed({ command: "check" }))

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

const summary = (config: UsineConfig) =>
  [
    count(config.loops.length, "loop"),
    count(config.repositories.length, "repository").replace(/ys$/, "ies"),
    count(Object.keys(config.agents).length, "agent"),
    count(Object.keys(config.workers).length, "worker")
  ].join(", ")

/** What `usine check` does once its arguments are parsed; loaded by the command only when it runs (ADR 0095). */
export const runCheck = ({ path }: { readonly path: string }) =>
  loadConfig(path).pipe(
    Effect.flatMap((config) => Console.log(`ok: ${path} (${summary(config)})`)),
    Effect.catchTags({
      ConfigInvalid: (error) => Console.error(error.message).pipe(Effect.zipRight(failed)),
      ConfigUnreadable: (error) => Console.error(error.message).pipe(Effect.zipRight(failed))
    })
  )
