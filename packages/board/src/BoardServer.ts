import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createAdaptorServer } from "@hono/node-server"
import { Effect, FiberSet, Option, Runtime } from "effect"
import { isLoopback } from "@usine/core/config/isLoopback"
import { Redactor } from "@usine/core/text/Redactor"
import { AuditTrail } from "./AuditTrail"
import { BoardAccess } from "./BoardAccess"
import { BoardActions } from "./BoardActions"
import { BoardRoutes } from "./BoardRoutes"
import { allowedHosts } from "./BoardServer/allowedHosts"
import { BoardListenFailed, BoardTokenMissing } from "./BoardServer/BoardStartFailures"
import { makeLoginSessions } from "./BoardServer/LoginSessions"
import { makeLoginThrottle } from "./BoardServer/LoginThrottle"
import { makeSignInStarts } from "./BoardServer/SignInStarts"
import { makeBoardApp } from "./BoardServer/makeBoardApp"
import type { RunExit } from "./BoardServer/respond"
import { BoardSettings } from "./BoardSettings"
import { BoardViews } from "./BoardViews"
import { GitHubSignIn } from "./GitHubSignIn"
import { BoardLedger } from "./BoardLedger"
import { TeamMembers } from "./TeamMembers"

const listen = (server: Server, host: string, port: number) =>
  Effect.async<void, BoardListenFailed>((resume) => {
    const onError = (cause: unknown) => resume(Effect.fail(new BoardListenFailed({ host, port, cause })))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

const close = (server: Server) =>
  Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
    // Live streams never end by themselves.
    server.closeAllConnections()
  })

/**
 * The operator's web Board on Hono and Node's HTTP server, for the life of its scope: closing the scope closes the
 * server and ends every live stream. It refuses to start on a non-loopback address without a token.
 */
export class BoardServer extends Effect.Service<BoardServer>()("usine/BoardServer", {
  scoped: Effect.gen(function* () {
    // The address, token and session policy are read once: they apply at the next start.
    const settings = (yield* BoardSettings).current()
    const { host } = settings.listen
    if (!isLoopback(host) && Option.isNone(settings.token) && settings.signIn === undefined) {
      return yield* new BoardTokenMissing({ host })
    }
    const views = yield* BoardViews
    // Absent only on a standby's Board (ADR 0109), whose guard refuses every action before any route.
    const actions = Option.getOrUndefined(yield* Effect.serviceOption(BoardActions))
    const access = yield* BoardAccess
    const audit = yield* AuditTrail
    const signIn = yield* Effect.serviceOption(GitHubSignIn)
    const teams = yield* Effect.serviceOption(TeamMembers)
    const redactor = yield* Redactor
    const routes = Option.getOrElse(yield* Effect.serviceOption(BoardRoutes), () => [])
    const ledger = yield* Effect.serviceOption(BoardLedger)
    const runtime = yield* Effect.runtime<never>()
    const run: RunExit = (effect) => Runtime.runPromiseExit(runtime)(effect)
    const streams = yield* FiberSet.make()
    const fork = yield* FiberSet.runtime(streams)<never>()
    // Sessions and the throttle read the Clock, so a test crosses an expiry with TestClock.adjust.
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()

    let hosts = allowedHosts(settings, settings.listen.port)
    const app = makeBoardApp({
      views,
      actions,
      access,
      audit,
      signIn,
      teams,
      starts: makeSignInStarts(now),
      run,
      redact: redactor.redact,
      auth: {
        token: settings.token,
        signIn: settings.signIn,
        sessions: makeLoginSessions(settings.session, now),
        policy: settings.session,
        throttle: makeLoginThrottle(now),
        httpsHost: settings.httpsHost?.toLowerCase(),
        trustProxy: settings.trustProxy
      },
      allowedHosts: () => hosts,
      routes,
      ledger,
      fork: (effect) => fork(effect),
      interval: settings.liveInterval
    })
    const server = createAdaptorServer({ fetch: app.fetch }) as Server
    yield* Effect.acquireRelease(listen(server, host, settings.listen.port), () => close(server))
    const port = (server.address() as AddressInfo).port
    hosts = allowedHosts(settings, port)
    const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`
    yield* Effect.logInfo(`board listening on ${origin}`)
    return {
      /** The port it listens on (the configured one, or the one the OS chose for port 0). */
      port,
      /** `http://host:port` of the listen address. */
      origin
    } as const
  }),
  dependencies: [BoardViews.Default, BoardActions.Default, BoardAccess.Default, AuditTrail.Default]
}) {}
