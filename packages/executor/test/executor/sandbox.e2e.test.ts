import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import type { AgentConfig } from "@usine/core/config/AgentConfig"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"
import { makeAttempt, makeRun, policy, recorder, scriptedAgent, setup, simLayer } from "./support/fixture"

/** An HTTP listener on 127.0.0.1 answering `text`, closed with the scope. */
const listener = (text: string) =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer((_, response) => response.end(text))
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  ).pipe(Effect.map((server) => (server.address() as AddressInfo).port))

/** What a prompt-injected agent tries; each probe prints one line the test reads back from the transcript. */
const HOSTILE = `
[ -e /proc/$DAEMON_PID ] && echo "pid: visible" || echo "pid: hidden"
kill -0 "$DAEMON_PID" 2>/dev/null && echo "kill: allowed" || echo "kill: refused"
cat "$CONFIG_FILE" >/dev/null 2>&1 && echo "config: read" || echo "config: hidden"
cat "$TOKEN_FILE" >/dev/null 2>&1 && echo "token: read" || echo "token: hidden"
ls "$OTHER_ATTEMPT" >/dev/null 2>&1 && echo "other attempt: listed" || echo "other attempt: hidden"
echo "allowed: $(curl -s -m 5 http://127.0.0.1:$ALLOWED_PORT/ || echo unreachable)"
echo "blocked: $(curl -s -m 5 http://127.0.0.1:$BLOCKED_PORT/ || echo unreachable)"
curl -s -m 5 http://127.0.0.1:$DEAD_PORT/; echo "allowed but down: curl exit $?"
setsid sh -c 'exec sleep 7787' </dev/null >/dev/null 2>&1 &
echo left behind > left.txt && git add -A && git commit --quiet -m "Leave a process behind"
echo done
`

/** Host processes whose command line is exactly `argv`. */
const processesRunning = (argv: ReadonlyArray<string>) =>
  fs.readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") === `${argv.join("\0")}\0`
    } catch {
      return false
    }
  })

describe("the sandbox on a local Worker (bubblewrap, the default)", () => {
  it.scopedLive(
    "hides the daemon's processes and files, reaches only its allow-list, and ends what the agent left behind; so for verify",
    () =>
      Effect.gen(function* () {
        const allowed = yield* listener("model endpoint")
        const blocked = yield* listener("someone else's port")
        // Allowed, but nothing listens there: the agent sees it refused (curl's 7), as it would without a sandbox.
        const dead = yield* listener("gone").pipe(Effect.scoped)
        // The daemon's folder: its config and token file beside the Worker root, as an operator's would be.
        const dir = yield* scopedTempDir("usine-sandbox-")
        const root = path.join(dir, "worker")
        const config = path.join(dir, "usine.yaml")
        const token = path.join(dir, "token")
        const other = path.join(root, "attempts", "someone-else")
        const base = scriptedAgent("edit")
        const hostile: AgentConfig = {
          ...base,
          command: ["sh", "-c", HOSTILE],
          env: {
            inherit: [],
            values: {
              ...base.env.values,
              DAEMON_PID: String(process.pid),
              CONFIG_FILE: config,
              TOKEN_FILE: token,
              OTHER_ATTEMPT: other,
              ALLOWED_PORT: String(allowed),
              BLOCKED_PORT: String(blocked),
              DEAD_PORT: String(dead)
            }
          },
          network: [`127.0.0.1:${allowed}`, `127.0.0.1:${dead}`]
        }
        const t = yield* setup({ agents: { hostile }, root })
        fs.writeFileSync(config, "github:\n  token_file: token\n")
        fs.writeFileSync(token, `${t.account.token}\n`, { mode: 0o600 })
        fs.mkdirSync(other, { recursive: true })
        assert.isTrue(processesRunning(["sleep", "7787"]).length === 0)
        const run = makeRun("hostile")
        const log = recorder()
        // The verify commands run agent-written code: the same sandbox, with the Loop's hosts only (none here), so
        // the Agent's endpoint is out of reach too. The Attempt succeeds only if every check holds.
        const verify = [
          `[ ! -e /proc/${process.pid} ] && ! kill -0 ${process.pid} 2>/dev/null`,
          `! cat ${config} 2>/dev/null && ! cat ${token} 2>/dev/null && ! ls ${other} 2>/dev/null`,
          `! curl -s -m 5 http://127.0.0.1:${allowed}/`
        ]
        const outcome = yield* t.executor.execute(log.request(run, makeAttempt(run, 1), policy({ verify })))
        assert.strictEqual(outcome._tag, "Succeeded", JSON.stringify(outcome))
        const said = log.rows.filter((row) => row.kind === "assistant").map((row) => row.text)
        assert.includeMembers(said, [
          "pid: hidden",
          "kill: refused",
          "config: hidden",
          "token: hidden",
          "other attempt: hidden",
          "allowed: model endpoint",
          "blocked: unreachable",
          "allowed but down: curl exit 7",
          "done"
        ])
        assert.deepStrictEqual(processesRunning(["sleep", "7787"]), [], "the setsid process died with the sandbox")
        const verified = log.rows.filter((row) => row.kind === "verify").map((row) => row.text)
        assert.lengthOf(verified, verify.length, verified.join("\n"))
        for (const row of verified) assert.match(row, /^pass \(round 1/)
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})

/** A host without bubblewrap for the scope: this process's PATH holds every other program of /usr/bin, but not bwrap. */
const withoutBubblewrap = Effect.gen(function* () {
  const bin = path.join(yield* scopedTempDir("usine-no-bwrap-"), "bin")
  fs.mkdirSync(bin)
  for (const name of fs.readdirSync("/usr/bin")) if (name !== "bwrap") fs.symlinkSync(path.join("/usr/bin", name), path.join(bin, name))
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      const before = process.env["PATH"]
      process.env["PATH"] = bin
      return before
    }),
    (before) => Effect.sync(() => void (process.env["PATH"] = before))
  )
})

describe("a Worker without a working sandbox", () => {
  it.scopedLive(
    "refuses its Attempts, saying what to do",
    () =>
      Effect.gen(function* () {
        yield* withoutBubblewrap
        const refusing = yield* setup()
        const run = makeRun("edit")
        const refused = yield* refusing.executor.execute(recorder().request(run, makeAttempt(run, 1), policy()))
        assert.strictEqual(refused._tag, "Failed")
        if (refused._tag !== "Failed") return
        assert.strictEqual(refused.failure._tag, "AgentFailure")
        assert.strictEqual(
          refused.failure.reason,
          `the Worker local (${os.hostname()}) has no working sandbox (bwrap is not installed): install bubblewrap and socat there, or set \`sandbox: none\` on the Worker`
        )
        assert.deepStrictEqual(refusing.branches(), ["main"], "nothing ran, nothing was pushed")
      }).pipe(Effect.provide(simLayer)),
    60_000
  )

  it.scopedLive(
    "runs them unconfined when it says sandbox: none",
    () =>
      Effect.gen(function* () {
        yield* withoutBubblewrap
        const unconfined = yield* setup({ sandbox: "none" })
        const next = makeRun("edit")
        const ran = yield* unconfined.executor.execute(recorder().request(next, makeAttempt(next, 1), policy()))
        assert.strictEqual(ran._tag, "Succeeded", JSON.stringify(ran))
      }).pipe(Effect.provide(simLayer)),
    60_000
  )
})
