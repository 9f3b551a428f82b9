import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import { Hono } from "hono"
import { controlRoutes } from "./control/ControlRoutes"
import { makeSimControl } from "./control/makeSimControl"
import type { SimControl } from "./control/SimControl"
import { GitHttpBackend } from "./git/GitHttpBackend"
import { graphqlRoute } from "./graphql/GraphqlRoute"
import { apiPipeline } from "./http/ApiPipeline"
import { FaultInjector } from "./http/FaultInjector"
import { RateLimits } from "./http/RateLimits"
import { RequestLog } from "./http/RequestLog"
import { serve } from "./http/SimServer"
import { appRoutes } from "./rest/AppRoutes"
import { oauthRoutes } from "./rest/OAuthRoutes"
import { issueRoutes } from "./rest/IssueRoutes"
import { labelRoutes } from "./rest/LabelRoutes"
import { pullRoutes } from "./rest/PullRoutes"
import { feedbackRoutes } from "./rest/FeedbackRoutes"
import { writeBackRoutes } from "./rest/WriteBackRoutes"
import { repositoryRoutes } from "./rest/RepositoryRoutes"
import { teamRoutes } from "./rest/TeamRoutes"
import { errorBody, NotFound } from "./world/ApiError"
import { SimClock } from "./world/SimClock"
import { SimWorld } from "./world/SimWorld"
import type { ApiEnv } from "./rest/route"

/** Where and how the emulator runs. */
export interface SimOptions {
  /** TCP port on 127.0.0.1; 0 or absent picks a free one. */
  readonly port?: number
  /** Keeps the bare repositories here; absent: a temporary directory removed on close. */
  readonly dataDir?: string
}

/** A running GitHub emulator. */
interface GitHubSimService {
  /** Origin of the emulator: octokit's `baseUrl`, `${url}/graphql`, and the host of every `clone_url`. */
  readonly url: string
  /** Directory holding the bare repositories. */
  readonly dataDir: string
  /** Tests' and the demo's handle on the emulated world. */
  readonly control: SimControl
  /** `clone_url` of `owner/name` with the token as HTTP Basic credentials, for the `git` binary. */
  readonly authenticatedCloneUrl: (repo: string, token: string) => string
}

const dataDirectory = (dataDir: string | undefined) =>
  dataDir !== undefined
    ? Effect.succeed(dataDir)
    : Effect.acquireRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "usine-github-sim-"))),
        (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )

const make = (options: SimOptions) =>
  Effect.gen(function* () {
    const dataDir = yield* dataDirectory(options.dataDir)
    const clock = yield* Effect.clock
    const simClock = new SimClock(() => clock.unsafeCurrentTimeMillis())
    const world = new SimWorld(simClock, dataDir)
    const faults = new FaultInjector()
    const limits = new RateLimits(simClock)
    const log = new RequestLog()
    const shutdown = new AbortController()

    const api = new Hono<ApiEnv>()
    appRoutes(api, world)
    oauthRoutes(api, world)
    apiPipeline(api, { world, faults, limits, log, shutdown: shutdown.signal })
    repositoryRoutes(api, world, limits)
    teamRoutes(api, world)
    issueRoutes(api, world)
    labelRoutes(api, world)
    pullRoutes(api, world)
    writeBackRoutes(api, world)
    feedbackRoutes(api, world)
    graphqlRoute(api, world, limits)
    api.notFound((c) => c.json(errorBody(new NotFound({ resource: c.req.path })), 404))

    const control = makeSimControl({ world, faults, limits, log })
    const git = new GitHttpBackend(world, log, faults)
    const { url } = yield* serve({ api, control: controlRoutes(control), git, shutdown }, options.port ?? 0, "127.0.0.1")
    world.baseUrl = url

    return GitHubSim.of({
      url,
      dataDir,
      control,
      authenticatedCloneUrl: (repo, token) => {
        const clone = new URL(`${url}/${repo}.git`)
        clone.username = "x-access-token"
        clone.password = token
        return clone.toString()
      }
    })
  })

/**
 * The GitHub emulator as a scoped service: closing the scope stops the server and removes its temporary data.
 * Its time is the layer's `Clock` (so under `TestClock` it starts at the epoch) shifted by `control.setTime`.
 */
export class GitHubSim extends Context.Tag("usine/GitHubSim")<GitHubSim, GitHubSimService>() {
  static readonly layer = (options: SimOptions = {}): Layer.Layer<GitHubSim, Error> => Layer.scoped(GitHubSim, make(options))
}
