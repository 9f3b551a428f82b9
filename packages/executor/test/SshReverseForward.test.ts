import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schedule, Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import * as SshReverseForward from "../src/SshReverseForward"
import { proxyTunnel } from "../src/WorkerExecutor/proxyTunnel"
import { sshdAvailable, sshServer } from "./sshServer"

/** A server on the daemon's loopback that says who it is. */
const scopedServer = (name: string) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((_req, res) => res.end(name))
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  ).pipe(Effect.map((server) => (server.address() as net.AddressInfo).port))

/** What answers on the "remote" host's 127.0.0.1:`port` (the remote host is this machine). */
const get = (port: number) => Effect.promise(() => fetch(`http://127.0.0.1:${port}/`).then((r) => r.text(), (e: unknown) => `failed: ${String(e)}`))

/** The ssh processes holding a forward to `port` on the daemon's loopback, and their `-R` argument. */
const forwardsTo = (port: number) =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((pid) => {
    let argv: Array<string>
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
    } catch {
      return []
    }
    const r = argv.indexOf("-R")
    return r >= 0 && argv[r + 1]?.endsWith(`:127.0.0.1:${port}`) === true ? [{ pid: Number(pid), forward: argv[r + 1] ?? "" }] : []
  })

/** Takes 127.0.0.1:`port` as soon as it is free, for the scope. */
const occupy = (port: number) =>
  Effect.acquireRelease(
    Effect.async<net.Server, Error>((resume) => {
      const server = net.createServer()
      server.once("error", (e) => resume(Effect.fail(e)))
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }).pipe(Effect.retry(Schedule.spaced("5 millis").pipe(Schedule.intersect(Schedule.recurs(2000)))), Effect.orDie),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const shortRetry = Schedule.spaced("200 millis").pipe(Schedule.intersect(Schedule.recurs(3)))

describe.runIf(sshdAvailable)("reverse forwards to an SSH Worker (ADR 0097)", () => {
  it.scopedLive("a forward at a free port reaches the daemon's port; its port is had again once it closed; a taken port fails with ssh's reason", () =>
    Effect.gen(function* () {
      const server = yield* sshServer(yield* scopedTempDir("usine-sshd-"))
      const open = SshReverseForward.make({ destination: server.destination, sshOptions: server.options })
      const daemonPort = yield* scopedServer("the daemon's proxy")

      const firstScope = yield* Scope.make()
      const first = yield* open({ port: daemonPort }).pipe(Scope.extend(firstScope))
      assert.notStrictEqual(first.remotePort, daemonPort)
      assert.strictEqual(yield* get(first.remotePort), "the daemon's proxy")
      yield* Scope.close(firstScope, Exit.void)
      assert.deepStrictEqual(forwardsTo(daemonPort), [], "closing the scope ends the ssh process")

      // A reattach asks for the same port again; the host frees it once the first connection has ended.
      const second = yield* open({ port: daemonPort, remotePort: first.remotePort }).pipe(Effect.retry(shortRetry))
      assert.strictEqual(second.remotePort, first.remotePort)
      assert.strictEqual(yield* get(second.remotePort), "the daemon's proxy")

      const taken = yield* Effect.flip(open({ port: daemonPort, remotePort: first.remotePort }))
      assert.strictEqual(taken._tag, "ReverseForwardFailed")
      assert.strictEqual(taken.remotePort, first.remotePort)
      assert.include(taken.message, `could not listen on 127.0.0.1:${first.remotePort} for the daemon`)
      assert.match(taken.detail, new RegExp(`remote port forwarding failed for listen port ${first.remotePort}`))
      assert.strictEqual(yield* get(second.remotePort), "the daemon's proxy", "the forward in place is untouched")
    }), 60_000)

  it.scopedLive("a tunnel whose ssh dies is reopened on the same port; one that cannot have its port again is lost, with the reason", () =>
    Effect.gen(function* () {
      const server = yield* sshServer(yield* scopedTempDir("usine-sshd-"))
      const forward = SshReverseForward.make({ destination: server.destination, sshOptions: server.options })
      const daemonPort = yield* scopedServer("the daemon's proxy")
      const tunnel = yield* proxyTunnel({ host: server.destination, forward, port: daemonPort, remotePort: undefined, retryPolicy: shortRetry })
      assert.strictEqual(yield* get(tunnel.remotePort), "the daemon's proxy")
      const [first] = forwardsTo(daemonPort)
      assert.strictEqual(first?.forward, `127.0.0.1:0:127.0.0.1:${daemonPort}`)

      process.kill(first?.pid ?? 0, "SIGKILL")
      const reopened = yield* Effect.sync(() => forwardsTo(daemonPort).find((f) => f.pid !== first?.pid)).pipe(
        Effect.filterOrFail((found) => found !== undefined),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.intersect(Schedule.recurs(200))))
      )
      assert.strictEqual(reopened?.forward, `127.0.0.1:${tunnel.remotePort}:127.0.0.1:${daemonPort}`, "the same port, asked for again")
      const answer = yield* get(tunnel.remotePort).pipe(
        Effect.filterOrFail((text) => text === "the daemon's proxy"),
        Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.intersect(Schedule.recurs(100)))),
        Effect.orElseSucceed(() => "never answered again")
      )
      assert.strictEqual(answer, "the daemon's proxy")

      // Killed again, and its port taken on the host before the tunnel can have it back: the tunnel is lost.
      process.kill(reopened?.pid ?? 0, "SIGKILL")
      yield* occupy(tunnel.remotePort)
      const lost = yield* Effect.flip(tunnel.lost).pipe(Effect.timeout("30 seconds"))
      assert.strictEqual(lost._tag, "ModelTunnelLost")
      assert.strictEqual(lost.remotePort, tunnel.remotePort)
      assert.include(lost.message, `could not be reopened on 127.0.0.1:${tunnel.remotePort} there`)
      assert.match(lost.detail, /remote port forwarding failed/)
      assert.deepStrictEqual(forwardsTo(daemonPort), [], "no ssh process is left trying")
    }), 60_000)
})
