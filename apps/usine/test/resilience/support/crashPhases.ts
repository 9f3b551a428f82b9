import { type Duration, Effect, Option } from "effect"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { REPOSITORY } from "../../support/daemonConfig"
import { attemptFolders } from "./attemptFolders"
import { queryLedger } from "./LedgerSnapshot"
import type { ResilienceWorld } from "./ResilienceWorld"
import { waitFor, waitUntil } from "./waitUntil"

/** The lifecycle moments the crash loop aims its SIGKILL at. */
export const PHASES = [
  "polling",
  "observed, before recordAndClaim",
  "agent running",
  "verifying",
  "pushing",
  "pull request request in flight",
  "pull request created, not recorded",
  "recovering after a restart"
] as const
type Phase = (typeof PHASES)[number]

interface PhaseContext {
  readonly world: ResilienceWorld
  readonly root: string
  readonly ledgerFile: string
  readonly random: () => number
  /** The issue this cycle labeled last. */
  readonly fresh: number
}

/** The daemon opening a pull request. */
export const isPullsPost = (r: LoggedRequest) => r.method === "POST" && /^\/repos\/[^/]+\/[^/]+\/pulls$/.test(r.path)
const isFindByHead = (r: LoggedRequest) => r.method === "GET" && /^\/repos\/[^/]+\/[^/]+\/pulls\?.*head=/.test(r.path)

/** The fault the PR phases install on pull request creation; cleared after each kill. */
const PULLS_POST = { method: "POST", path: "/repos/*/*/pulls", times: 1 } as const

const lastJournalStep = (root: string, step: string, extra: (f: ReturnType<typeof attemptFolders>[number]) => boolean = () => true) =>
  () => attemptFolders(root).some((f) => f.journal[f.journal.length - 1] === step && extra(f))

const sleepRandom = (ctx: PhaseContext, maxMs: number, minMs = 0) =>
  Effect.sleep(`${Math.floor(minMs + ctx.random() * (maxMs - minMs))} millis`)

/**
 * Waits for the moment of `phase` (or gives up after a while: the kill then lands wherever the daemon is, and the
 * post-mortem says where). Returns what was armed, for the table.
 */
export const awaitPhase = (phase: Phase, ctx: PhaseContext): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    const { world, root } = ctx
    switch (phase) {
      case "polling":
        yield* sleepRandom(ctx, 2_000)
        return []
      case "observed, before recordAndClaim": {
        const key = JSON.stringify(["github", REPOSITORY, ctx.fresh])
        yield* waitFor(() => queryLedger(ctx.ledgerFile, "SELECT 1 FROM usine_item_projections WHERE item_key = ?", key).length > 0, "15 seconds", "5 millis")
        return []
      }
      case "agent running":
        yield* waitFor(() => attemptFolders(root).some((f) => f.agentRunning && f.journal[f.journal.length - 1] === "turn"), "20 seconds")
        yield* sleepRandom(ctx, 300)
        return []
      case "verifying":
        yield* waitFor(lastJournalStep(root, "turnEnd"), "20 seconds", "10 millis")
        yield* sleepRandom(ctx, 300)
        return []
      case "pushing":
        yield* waitFor(lastJournalStep(root, "verify", (f) => f.verifyPassed), "20 seconds", "5 millis")
        yield* sleepRandom(ctx, 150)
        return []
      case "pull request request in flight": {
        yield* world.call(() => world.control.setFault({ ...PULLS_POST, delayMs: 1_500 }))
        const before = (yield* world.botRequests).filter(isFindByHead).length
        yield* waitForLog(world, (log) => log.filter(isFindByHead).length > before)
        yield* sleepRandom(ctx, 1_300, 100)
        return ["POST /pulls delayed 1.5 s"]
      }
      case "pull request created, not recorded": {
        if (ctx.random() < 0.5) {
          yield* world.call(() => world.control.setFault({ ...PULLS_POST, delayAfterMs: 1_500 }))
          const before = (yield* world.pulls).length
          yield* waitForPulls(world, (n) => n > before)
          yield* sleepRandom(ctx, 1_000)
          return ["POST /pulls answered 1.5 s after the pull request exists"]
        }
        const before = (yield* world.botRequests).filter(isPullsPost).length
        yield* waitForLog(world, (log) => log.filter(isPullsPost).length > before)
        return []
      }
      case "recovering after a restart":
        yield* sleepRandom(ctx, 1_500)
        return []
    }
  })

const when = <A>(look: Effect.Effect<A>, done: (a: A) => boolean, every: Duration.DurationInput) =>
  waitUntil(Effect.map(look, (a) => (done(a) ? Option.some(true) : Option.none())), "25 seconds", every)

const waitForPulls = (world: ResilienceWorld, done: (count: number) => boolean) =>
  when(Effect.map(world.pulls, (pulls) => pulls.length), done, "20 millis")

const waitForLog = (world: ResilienceWorld, done: (log: ReadonlyArray<LoggedRequest>) => boolean) =>
  when(world.botRequests, done, "5 millis")
