import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"

/**
 * `usine demo`: in one process, the GitHub emulator with a sample repository and issues, and the daemon wired exactly
 * as `usine up` wires it (real ledger, executor, polling, Board), working in a temporary folder removed at exit
 * (or in `--keep`'s folder, kept).
 */
export const demo = Command.make(
  "demo",
  {
    autoApprove: Options.boolean("auto-approve").pipe(Options.withDescription("approve every waiting Run at once")),
    exitAfter: Options.integer("exit-after").pipe(
      Options.withDescription("drain and exit 0 once this many pull requests are open"),
      Options.optional
    ),
    port: Options.integer("port").pipe(Options.withDescription("the board's port"), Options.withDefault(8787)),
    keep: Options.directory("keep").pipe(
      Options.withDescription("work in this empty (or new) folder and keep it at exit: ledger, logs and worktrees, to look at afterwards"),
      Options.optional
    ),
    agent: Options.choice("agent", ["pi", "script"]).pipe(
      Options.withDescription("the real Pi CLI on a scripted model (default), or a script standing in for an agent"),
      Options.withDefault("pi" as const)
    )
  },
  (options) => Effect.flatMap(Effect.promise(() => import("./demo/runDemo")), ({ runDemo }) => runDemo(options))
).pipe(Command.withDescription("Watch an issue become a pull request: the emulator, the real Pi agent on a scripted model, and the board, offline."))
