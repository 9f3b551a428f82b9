import { Octokit } from "@octokit/rest"
import { Effect, Either } from "effect"

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

/** @octokit/rest pointed at the emulator exactly as the daemon's client will be (baseUrl + token). */
export const octokitFor = (url: string, token: string): Octokit => new Octokit({ baseUrl: url, auth: token, log: quiet })

type HttpFailure = { status: number; response?: { headers: Record<string, string>; data: any } }

/**
 * The error octokit throws, as a value. An unexpected success fails the test with a short message:
 * a whole octokit response as the failure makes the reporter crawl.
 */
export const failure = <A>(call: () => Promise<A>) =>
  Effect.tryPromise({ try: call, catch: (error) => error as HttpFailure }).pipe(
    Effect.either,
    Effect.flatMap(
      Either.match({
        onLeft: (error) => Effect.succeed(error),
        onRight: (value) =>
          Effect.dieMessage(`expected the call to fail, it answered ${(value as { status?: number }).status ?? "a value"}`)
      })
    )
  )

/** The call's result; a rejection fails the test with the status and message only. */
export const call = <A>(call: () => Promise<A>) =>
  Effect.tryPromise({
    try: call,
    catch: (error) => {
      const { status, message } = error as { status?: number; message?: string }
      return new Error(`expected the call to succeed, it failed: ${status ?? ""} ${message ?? String(error)}`)
    }
  }).pipe(Effect.orDie)
