import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"

/** `usine check [path]`: exit 0 and a one-line summary for a valid file, exit 1 and every problem otherwise. */
export const check = Command.make(
  "check",
  {
    path: Args.text({ name: "path" }).pipe(
      Args.withDescription("the configuration file to check"),
      Args.withDefault("usine.yaml")
    )
  },
  (args) => Effect.flatMap(Effect.promise(() => import("./check/runCheck")), ({ runCheck }) => runCheck(args))
).pipe(Command.withDescription("Check a usine.yaml: its schema, references, and every if:, prompt: and cron."))
