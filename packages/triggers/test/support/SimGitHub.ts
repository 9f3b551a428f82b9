import { Context, Effect, Layer, Redacted } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { GitHubClient } from "@usine/github/GitHubClient"

export const REPOSITORY = "acme/widgets"

/** The account usine polls as. */
export class SimAccount extends Context.Tag("test/SimAccount")<SimAccount, { readonly login: string; readonly token: string }>() {}

const Account = Layer.effect(
  SimAccount,
  Effect.gen(function* () {
    const sim = yield* GitHubSim
    const account = yield* sim.control.createUser({ login: "usine-bot", permission: "write" })
    yield* sim.control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "widgets\n" } })
    return account
  }).pipe(Effect.orDie)
)

const client = (requestTimeoutMs: number) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      const account = yield* SimAccount
      return GitHubClient.Default({ token: Redacted.make(account.token), apiUrl: sim.url, retries: 1, retryBaseMs: 5, requestTimeoutMs })
    })
  )

/** The emulator on 127.0.0.1 with `acme/widgets`, an account, and usine's client pointed at it. */
export const simGitHub = (options: { readonly requestTimeoutMs?: number } = {}) =>
  client(options.requestTimeoutMs ?? 10_000).pipe(
    Layer.provideMerge(Account),
    Layer.provideMerge(GitHubSim.layer()),
    Layer.orDie
  )

export const SimGitHub = simGitHub()

/** Requests the emulator answered since the last clear, as `METHOD path status` lines (304s marked). */
export const requestLines = Effect.gen(function* () {
  const sim = yield* GitHubSim
  const log = yield* Effect.orDie(sim.control.requestLog())
  return log.map((entry) => `${entry.method} ${entry.path.split("?")[0]} ${entry.status}${entry.conditional ? " conditional" : ""}`)
})

export const clearRequestLog = Effect.flatMap(GitHubSim, (sim) => Effect.orDie(sim.control.clearRequestLog()))
