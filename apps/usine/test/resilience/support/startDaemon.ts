import { type Duration, Effect } from "effect"
import { startUsine } from "../../support/UsineProcess"

/** `usine up` in `dir`, once it says it is up (ledger open, workspaces recovered, reconciled, triggers started). */
export const startDaemon = (
  dir: string,
  options: { readonly timeout?: Duration.DurationInput; readonly env?: Readonly<Record<string, string>> } = {}
) =>
  Effect.gen(function* () {
    const usine = yield* startUsine(dir, ["up"], options.env)
    const board = (yield* usine.waitFor(/usine is up as .*board=(http:\/\/127\.0\.0\.1:\d+\/)/, options.timeout ?? "60 seconds"))[1] ?? ""
    return { usine, board, pid: usine.child.pid ?? 0 }
  })

/**
 * SIGKILL to the daemon's own process, not its group: the agent sessions it started are detached on purpose and
 * must outlive it (the next daemon reattaches them). Resolves once it is gone.
 */
export const killDaemon = (daemon: Effect.Effect.Success<ReturnType<typeof startDaemon>>) =>
  Effect.gen(function* () {
    yield* daemon.usine.signal("SIGKILL")
    return yield* daemon.usine.exit("30 seconds")
  })
