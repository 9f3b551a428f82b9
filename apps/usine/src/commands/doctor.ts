import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { configOption } from "./up"

/**
 * `usine doctor`: every check of a setup, one line each, printed as it is made and redacted with the daemon's
 * secrets: the config, the token and its permissions on each repository, the clock, each Worker and its Agents'
 * CLIs, the Agents' keys, the Board's port. Exit 1 when any line is a ✗.
 */
export const doctor = Command.make("doctor", { config: configOption }, (options) =>
  Effect.flatMap(Effect.promise(() => import("./doctor/runDoctor")), ({ runDoctor }) => runDoctor(options))
).pipe(Command.withDescription("Check a setup: config, token and permissions, Workers, Agents' CLIs, the Board's port, the clock."))
