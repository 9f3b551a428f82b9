import { Effect } from "effect"
import type { LoggedRequest } from "@usine/github-sim/http/RequestLog"
import { REPOSITORY } from "../../support/daemonConfig"
import { json } from "../../support/http"
import { scopedSim } from "../../support/scopedSim"
import type { EmulatedPull } from "./checkInvariants"

/** An issue as the emulator's REST API lists it. */
interface EmulatedIssue {
  readonly number: number
  readonly title: string
  readonly state: string
  readonly labels: ReadonlyArray<string>
  readonly isPullRequest: boolean
}

/** The login the daemon runs as; the request log is read for its requests only. */
export const BOT = "usine-bot"

/**
 * The emulator for one resilience test: `acme/widgets` seeded with a tiny project, the daemon's account (write access,
 * a rate limit too large to matter unless a test lowers it), and an observer account whose reads of pull requests
 * and issues never touch the daemon's budget nor its part of the request log.
 */
export const scopedWorld = Effect.gen(function* () {
  const sim = yield* scopedSim
  const call = <A>(f: () => Promise<A>) => Effect.promise(f)
  const { token } = yield* call(() => sim.control.createUser({ login: BOT, permission: "write" }))
  const observer = yield* call(() => sim.control.createUser({ login: "observer", permission: "read" }))
  yield* call(() =>
    sim.control.createRepository({
      owner: "acme",
      name: "widgets",
      files: { "README.md": "# widgets\n", "src/widget.js": "export const widget = () => 42\n" }
    })
  )
  const unlimited = { limit: 100_000_000, remaining: 100_000_000 }
  yield* call(() => sim.control.setRateLimit({ login: BOT, ...unlimited }))
  yield* call(() => sim.control.setRateLimit({ login: BOT, resource: "graphql", ...unlimited }))
  yield* call(() => sim.control.setRateLimit({ login: "observer", ...unlimited }))

  const read = <A>(path: string) => json<A>(`${sim.url}${path}`, { headers: { authorization: `token ${observer.token}` } })
  const everyPage = <A>(path: string) =>
    Effect.gen(function* () {
      const all: Array<A> = []
      for (let page = 1; ; page++) {
        const batch = yield* read<ReadonlyArray<A>>(`${path}${path.includes("?") ? "&" : "?"}per_page=100&page=${page}`)
        all.push(...batch)
        if (batch.length < 100) return all
      }
    })

  /** Every pull request of the repository, open or not. */
  const pulls = everyPage<{ number: number; state: string; head: { ref: string } }>(`/repos/${REPOSITORY}/pulls?state=all`).pipe(
    Effect.map((list): ReadonlyArray<EmulatedPull> => list.map((p) => ({ number: p.number, head: p.head.ref, state: p.state }))),
    Effect.orDie
  )
  /** Every issue of the repository (pull requests excluded), open or not. */
  const issues = everyPage<{ number: number; title: string; state: string; labels: Array<{ name: string }>; pull_request?: unknown }>(
    `/repos/${REPOSITORY}/issues?state=all`
  ).pipe(
    Effect.map((list): ReadonlyArray<EmulatedIssue> =>
      list
        .map((i) => ({ number: i.number, title: i.title, state: i.state, labels: i.labels.map((l) => l.name), isPullRequest: i.pull_request !== undefined }))
        .filter((i) => !i.isPullRequest)
    ),
    Effect.orDie
  )
  /** The daemon's requests to the API and git, in arrival order. */
  const botRequests = Effect.map(call(() => sim.control.requestLog()), (log): ReadonlyArray<LoggedRequest> => log.filter((r) => r.login === BOT))

  return { sim, token, control: sim.control, pulls, issues, botRequests, call, read: <A>(path: string) => Effect.orDie(read<A>(path)) }
})

export type ResilienceWorld = Effect.Effect.Success<typeof scopedWorld>
