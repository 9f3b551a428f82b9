import * as Command from "@effect/cli/Command"
import * as Effect from "effect/Effect"
import { configOption } from "./up"

/** `usine status`: open Runs, Needs you, today's usage and brakes, Workers and rate budget, from the daemon's JSON API. */
export const status = Command.make("status", { config: configOption }, (options) =>
  Effect.flatMap(Effect.promise(() => import("./status/runStatus")), ({ runStatus }) => runStatus(options))
).pipe(Command.withDescription("Show the running daemon's open Runs, what needs you, today's usage and brakes, its Workers and rate budget."))
