import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { check } from "./commands/check"
import { reportFailure } from "./reportFailure"

const usine = Command.make("usine").pipe(Command.withSubcommands([check]))

const cli = Command.run(usine, { name: "usine", version: "0.0.0" })

cli(process.argv).pipe(reportFailure, Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: true }))
