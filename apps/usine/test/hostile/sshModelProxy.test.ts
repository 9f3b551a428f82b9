import { chmodSync, type Dirent, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import * as net from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schedule } from "effect"
import { isFault, type ModelScript, usageOf } from "@usine/model-sim/ModelScript"
import { sshdAvailable, sshServer } from "../../../../packages/executor/test/sshServer"
import { PI_CLI } from "../../src/demo/demoAgents"
import { demoModelScripts } from "../../src/demo/demoModelScripts"
import { eventually } from "../support/http"
import { scopedDir } from "../support/scopedSim"
import { startUsine } from "../support/UsineProcess"
import { type RealAgentWorld, realAgentWorld } from "../realAgents/RealAgentWorld"
import { release, runView, whenRunning } from "../realAgents/steeredThroughRestart"

/**
 * A provider key the agent never holds, on an SSH Worker (issue 31, ADR 0097): the real Pi CLI on an ssh Worker (an
 * OpenSSH server on 127.0.0.1, the sandbox on, the daemon as root where the suite runs so) reaches its scripted model
 * through the daemon's model proxy, carried to the Worker's loopback by a reverse tunnel. The key, unique to this test,
 * is looked for in every process of the machine (environment and command line) but the daemon's, and in every file
 * under the Worker root. The agent also makes a model request of its own behind the CLI's back: the proxy counts it,
 * the CLI's stream does not, and the daily count is the proxy's. The tunnel is killed mid-Attempt (reopened on the same
 * port) and the daemon is SIGKILLed and restarted (the new daemon asks for the same port again). A second Run's tunnel
 * is killed with its port taken on the host: the Attempt fails as infrastructure, cut off from its model.
 */

const KEY = `sim-key-ssh-${randomBytes(8).toString("hex")}`
const HOST = "model-proxy-worker"
const SIDE_TEXT = "a model request behind the back of the CLI"

/** A tool call that waits until the test lets it go (a file in the worktree). */
const waitFor = (name: string) => `while [ ! -f ${name} ]; do sleep 0.2; done; rm ${name}; echo ${name} seen`

/** The agent's own request to the model, to the URL and with the key its CLI was given. */
const sideRequest =
  `node -e 'const m = require(process.env.PI_CODING_AGENT_DIR + "/models.json").providers.usine; ` +
  `fetch(m.baseUrl + "/chat/completions", {method: "POST", headers: {"content-type": "application/json", authorization: "Bearer " + process.env.USINE_MODEL_API_KEY}, ` +
  `body: JSON.stringify({model: "sim-model", stream: true, messages: [{role: "user", content: "${SIDE_TEXT}"}]})})` +
  `.then((r) => r.text()).then((t) => console.log("SIDE " + t.length + " bytes via " + m.baseUrl), (e) => console.log("SIDE failed " + e))'`

const SCRIPT: ModelScript = {
  turns: [{ run: waitFor(".usine-go-1") }, { run: `${sideRequest}; ${waitFor(".usine-go-2")}` }, ...demoModelScripts.fixPunctuation.turns]
}

const CUTOFF: ModelScript = { turns: [{ run: waitFor(".usine-go-1") }, { say: "done" }] }

const read = (file: string): Buffer | undefined => {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

const pids = () => readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number)

const argvOf = (pid: number) => (read(`/proc/${pid}/cmdline`)?.toString("utf8") ?? "").split("\0").filter((arg) => arg !== "")

/** The machine's processes, the daemons' own aside, whose environment or command line holds the key. */
const processesHolding = (daemons: ReadonlyArray<number | undefined>) =>
  pids().filter((pid) => !daemons.includes(pid) && ["environ", "cmdline"].some((file) => read(`/proc/${pid}/${file}`)?.includes(KEY) === true))

/** Every regular file under `dir` that holds the key; symbolic links are not followed. */
const filesHolding = (dir: string): ReadonlyArray<string> => {
  let entries: ReadonlyArray<Dirent>
  try {
    entries = readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return filesHolding(path)
    return entry.isFile() && read(path)?.includes(KEY) === true ? [path] : []
  })
}

/** The daemon's tunnels to the test's sshd: each ssh process and its `-R` argument. */
const tunnels = (sshConfig: string) =>
  pids().flatMap((pid) => {
    const argv = argvOf(pid)
    const r = argv.indexOf("-R")
    return r >= 0 && argv.includes(sshConfig) && argv.some((arg) => arg.includes("usine-forward-ready")) ? [{ pid, forward: argv[r + 1] ?? "" }] : []
  })

/** Whether something accepts connections on 127.0.0.1:`port` (the "remote" host is this machine). */
const accepts = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

/** Takes 127.0.0.1:`port` as soon as it is free, for the scope: the tunnel cannot have it back. */
const occupy = (port: number) =>
  Effect.acquireRelease(
    Effect.async<net.Server, Error>((resume) => {
      const server = net.createServer()
      server.once("error", (e) => resume(Effect.fail(e)))
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }).pipe(Effect.retry(Schedule.spaced("5 millis").pipe(Schedule.intersect(Schedule.recurs(2000)))), Effect.orDie),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

/** The tokens the scripted model reported for every POST it answered: what the proxy saw go past. */
const answeredTokens = (w: RealAgentWorld) =>
  (w.models["remote"]?.requests ?? [])
    .filter((r) => r.method === "POST" && r.turn !== undefined && !isFault(r.turn))
    .reduce((sum, r) => {
      if (r.turn === undefined || isFault(r.turn)) return sum
      const usage = usageOf(r.turn)
      return sum + usage.input + usage.output
    }, 0)

/** The agent's own requests: a conversation other than its CLI's, which made the first request. */
const sideRequests = (w: RealAgentWorld) => {
  const requests = (w.models["remote"]?.requests ?? []).filter((r) => r.method === "POST")
  return requests.filter((r) => r.conversation !== requests[0]?.conversation)
}

const dailyOfLoop = (w: RealAgentWorld) => Effect.map(w.ledger.dailyTokens(), (daily) => daily.get("loop:remote"))

describe("hostile agent: the provider key on an SSH Worker, with the real Pi CLI through usine up", () => {
  it.scopedLive.skipIf(!sshdAvailable)(
    "the agent reaches its model through the daemon's proxy over a reverse tunnel; the key is in no process or file there; the proxy counts; the tunnel survives its own death and the daemon's; one that cannot come back fails the Attempt as infrastructure",
    () =>
      Effect.gen(function* () {
        const sshDir = yield* scopedDir
        const server = yield* sshServer(sshDir)
        const sshConfig = join(sshDir, "config")
        writeFileSync(
          sshConfig,
          `Host ${HOST}\n  HostName 127.0.0.1\n  Port ${server.port}\n  User ${process.env["USER"] ?? "root"}\n  IdentityFile ${join(sshDir, "client_key")}\n  UserKnownHostsFile ${server.knownHosts}\n`
        )
        // The daemon's ssh reads this file through a wrapper first on its PATH; the user's own ssh config is left alone.
        mkdirSync(join(sshDir, "bin"))
        writeFileSync(join(sshDir, "bin", "ssh"), `#!/bin/sh\nexec /usr/bin/ssh -F '${sshConfig}' "$@"\n`)
        chmodSync(join(sshDir, "bin", "ssh"), 0o755)
        const daemonEnv = { PATH: `${join(sshDir, "bin")}:${process.env["PATH"] ?? ""}` }
        const w = yield* realAgentWorld({
          harness: "pi",
          command: [process.execPath, PI_CLI],
          stallMinutes: 2,
          sshHost: HOST,
          daemonEnv,
          modelKey: KEY,
          scenarios: [
            { name: "remote", title: "slugify keeps punctuation", script: SCRIPT },
            { name: "cutoff", title: "an agent whose tunnel cannot come back", script: CUTOFF, deferred: true }
          ]
        })
        const run = yield* eventually(
          "the Run opened",
          Effect.map(w.ledger.runs("remote").pipe(Effect.orElseSucceed(() => [])), (runs) => Option.fromNullable(runs[0])),
          60
        )
        const attemptId = yield* whenRunning(w, run.id, ".usine-go-1")
        const attemptDir = join(w.workspaces, "attempts", attemptId.replaceAll("/", "_"))
        const keyAbsent = (daemons: ReadonlyArray<number | undefined>, when: string) =>
          Effect.sync(() => {
            assert.deepStrictEqual(processesHolding(daemons).map((pid) => argvOf(pid).join(" ")), [], `${when}: no process but the daemon holds the key`)
            assert.deepStrictEqual(filesHolding(w.workspaces), [], `${when}: no file under the Worker root holds the key`)
          })
        yield* keyAbsent([w.usine.child.pid], "while the agent runs")

        // The CLI points at a port of the Worker's loopback, a tunnel's, not at the proxy's port on the daemon's.
        const remotePort = Number(read(join(attemptDir, "model-proxy.port"))?.toString("utf8").trim())
        const models = JSON.parse(read(join(attemptDir, "turn-1", "pi-agent", "models.json"))?.toString("utf8") ?? "{}") as {
          readonly providers?: { readonly usine?: { readonly baseUrl?: string; readonly apiKey?: string } }
        }
        assert.strictEqual(models.providers?.usine?.baseUrl, `http://127.0.0.1:${remotePort}/v1`)
        const [first, ...others] = tunnels(sshConfig)
        assert.deepStrictEqual(others, [], "one tunnel for the one Attempt")
        const proxyPort = Number(/^127\.0\.0\.1:0:127\.0\.0\.1:(\d+)$/.exec(first?.forward ?? "")?.[1])
        assert.isAbove(proxyPort, 0, first?.forward)
        assert.notStrictEqual(proxyPort, remotePort)


        // The tunnel's ssh dies: it is reopened on the same port, to the same proxy.
        process.kill(first?.pid ?? 0, "SIGKILL")
        const reopened = yield* eventually(
          "the tunnel reopened",
          Effect.sync(() => Option.fromNullable(tunnels(sshConfig).find((t) => t.pid !== first?.pid))),
          30
        )
        assert.strictEqual(reopened.forward, `127.0.0.1:${remotePort}:127.0.0.1:${proxyPort}`)
        yield* eventually("the Worker's port reaches the proxy again", Effect.map(accepts(remotePort), (ok) => (ok ? Option.some(ok) : Option.none())), 30)
        yield* release(w, attemptId, ".usine-go-1")

        // The agent's own request went through the proxy too, which counted it, before the daemon is killed.
        yield* whenRunning(w, run.id, ".usine-go-2")
        const counted = yield* eventually(
          "the proxy's count of every answered request in the ledger",
          Effect.gen(function* () {
            const sides = sideRequests(w)
            const daily = yield* dailyOfLoop(w)
            return sides.length === 1 && daily === answeredTokens(w) ? Option.some(daily) : Option.none()
          }),
          60
        )
        assert.strictEqual(counted, 3 * 930, "Pi's two requests and the agent's own, 930 tokens each")

        yield* w.usine.signal("SIGKILL")
        yield* w.usine.exit()
        yield* eventually("the killed daemon's tunnel ends with it", Effect.sync(() => (tunnels(sshConfig).length === 0 ? Option.some(true) : Option.none())), 30)
        const restarted = yield* startUsine(w.dir, ["up"], { ...daemonEnv, USINE_TEST_MODEL_KEY: KEY })
        const boardUrl = (yield* restarted.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
        yield* restarted.waitFor(/msg="attempt 1 followed again on remote"/)
        const again = yield* eventually("the new daemon's tunnel", Effect.sync(() => Option.fromNullable(tunnels(sshConfig)[0])), 30)
        assert.match(again.forward, new RegExp(`^127\\.0\\.0\\.1:${remotePort}:127\\.0\\.0\\.1:\\d+$`), "the same port of the Worker, asked again")
        yield* eventually("the Worker's port reaches the new proxy", Effect.map(accepts(remotePort), (ok) => (ok ? Option.some(ok) : Option.none())), 30)
        yield* keyAbsent([w.usine.child.pid, restarted.child.pid], "after the restart")
        yield* release(w, attemptId, ".usine-go-2")

        const closed = yield* w.ledger.closedRun("remote", 120)
        const attempts = yield* w.ledger.attempts(run.id)
        assert.strictEqual(closed.state, "Succeeded", JSON.stringify(attempts))
        assert.strictEqual(attempts.length, 1, "one Attempt, through the tunnel's death and the daemon's")

        const posts = (w.models["remote"]?.requests ?? []).filter((r) => r.method === "POST")
        assert.isTrue(posts.length > 3 && posts.every((r) => r.authorization === `Bearer ${KEY}`), "every request reached the model with the key the daemon added")
        assert.strictEqual(yield* dailyOfLoop(w), answeredTokens(w), "the daily count is the proxy's: every answered request, the agent's own included")
        const view = yield* runView({ boardUrl }, run.id)
        const tools = view.transcript.lines.filter((l) => l.kind === "tool_result").map((l) => l.text).join("\n")
        assert.match(tools, new RegExp(`SIDE \\d+ bytes via http://127\\.0\\.0\\.1:${remotePort}/v1`), tools)
        assert.isTrue(
          view.timeline.some((e) => e.note === "UsageDisagreed" && /usine's model proxy counted/.test(e.why)),
          "the stream missed the agent's own request: the disagreement is on the Run"
        )

        // Another Run's tunnel dies and its port is taken on the host before it can come back: the agent is cut off
        // from its model, and its turn ends as an infrastructure failure that says so; the key never comes instead.
        yield* w.label("cutoff")
        const cut = yield* eventually(
          "the second Run opened",
          Effect.map(w.ledger.runs("cutoff").pipe(Effect.orElseSucceed(() => [])), (runs) => Option.fromNullable(runs[0])),
          60
        )
        const cutAttempt = yield* whenRunning({ boardUrl }, cut.id, ".usine-go-1")
        const cutPort = Number(read(join(w.workspaces, "attempts", cutAttempt.replaceAll("/", "_"), "model-proxy.port"))?.toString("utf8").trim())
        const [cutTunnel, ...more] = tunnels(sshConfig)
        assert.deepStrictEqual(more, [], "the first Run's tunnel closed with its Attempt")
        assert.match(cutTunnel?.forward ?? "", /^127\.0\.0\.1:0:127\.0\.0\.1:\d+$/)
        process.kill(cutTunnel?.pid ?? 0, "SIGKILL")
        yield* occupy(cutPort)
        const failure = yield* eventually(
          "the cut-off Attempt's outcome",
          Effect.map(w.ledger.attempts(cut.id), (attempts) => Option.fromNullable(attempts[0]?.outcome?.failure)),
          90
        )
        assert.strictEqual(failure._tag, "InfraFailure", JSON.stringify(failure))
        assert.match(
          failure.reason,
          new RegExp(`^the agent was cut off from its model: the tunnel from ${HOST} to usine's model proxy closed and could not be reopened on 127\\.0\\.0\\.1:${cutPort} there: ssh exited with 255: .*remote port forwarding failed`),
          failure.reason
        )
        yield* keyAbsent([w.usine.child.pid, restarted.child.pid], "after the cut-off")
      }),
    300_000
  )
})
