import { Clock, Effect, Option } from "effect"
import * as path from "node:path/posix"
import { type SandboxRequest, sandboxCommand } from "../Sandbox"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import { SessionNotStarted } from "./SessionFailures"
import { encodeHandle, SessionRecord } from "./SessionRecord"
import { encodeSessionStart, readSessionStart, SessionStart, settleUnrecordedStart } from "./findSession"
import { claimName, sessionFiles } from "./sessionFiles"
import { environmentScript, wrapperScript } from "./wrapperScript"

export interface SessionSpec {
  /** The Attempt's folder, outside the worktree: stream, exit status, stdin, harness files. */
  readonly attemptDir: string
  /** The agent's working directory. */
  readonly workdir: string
  readonly argv: ReadonlyArray<string>
  /** The agent's whole environment; the daemon's own is never inherited. */
  readonly env: Readonly<Record<string, string>>
  /** Given to the agent on stdin. */
  readonly stdin?: string | undefined
  /** Keep stdin open after `stdin` through a FIFO, so interventions can be written to it. */
  readonly keepStdinOpen?: boolean
  /**
   * The wrapper feeds stdin (ADR 0062): `stdin` first, then each `inbox/*.msg` in name order, until the daemon drops
   * `inbox/close`; the channel lives as long as the session, whatever happens to the daemon.
   */
  readonly feedInbox?: boolean
  /** Files to write into the Attempt's folder first, relative path → content. */
  readonly files?: Readonly<Record<string, string>>
  /**
   * Runs the agent's argv (only it: the wrapper stays outside) in a bubblewrap sandbox (ADR 0054). The folders of
   * `files` are writable inside besides what it lists; the agent's own binary and script paths are visible.
   */
  readonly sandbox?: SessionSandbox | undefined
}

/** What a sandboxed session may see and reach besides its folder, its harness files and its own install. */
export type SessionSandbox = Pick<SandboxRequest, "writable" | "readOnly" | "homeFiles" | "tools" | "network" | "confinement">

interface StartedSession {
  readonly record: SessionRecord
  /** What the engine stores for `isLive` and reattach. */
  readonly handle: string
}

const refuse = (attemptDir: string, reason: string) => new SessionNotStarted({ attemptDir, reason })

/**
 * Starts the agent detached from the daemon in its own session and process group (ADR 0014) and records
 * `session.json`. A folder that already held a session is refused: its stream would be mixed with the new one.
 * Record before spawn (ADR 0048): `starting` names the claim the wrapper takes first, so a start whose record
 * failed (a transport error after the spawn, the daemon killed) is adopted by the next call, never run twice.
 */
export const startSession = (
  transport: WorkerTransportShape,
  spec: SessionSpec
): Effect.Effect<StartedSession, TransportError | SessionNotStarted> =>
  Effect.gen(function* () {
    const files = sessionFiles(spec.attemptDir)
    if (spec.argv.length === 0) return yield* refuse(spec.attemptDir, "the agent command is empty")
    if (Option.isSome(yield* transport.readFile(files.session, { maxBytes: 0 }))) {
      return yield* refuse(spec.attemptDir, "the folder already holds a session")
    }
    const environment = environmentScript(spec.env)
    if (typeof environment !== "string") {
      return yield* refuse(spec.attemptDir, `invalid environment variable name ${JSON.stringify(environment.invalid)}`)
    }
    const earlier = yield* settleUnrecordedStart(transport, spec.attemptDir)
    if (Option.isSome(earlier)) return { record: earlier.value, handle: encodeHandle(earlier.value) }
    const previous = yield* readSessionStart(transport, spec.attemptDir)

    yield* transport.makeDirectory(files.inbox)
    if (spec.feedInbox === true) yield* transport.makeDirectory(files.fed)
    for (const [relative, content] of Object.entries(spec.files ?? {})) {
      const target = path.normalize(relative)
      if (path.isAbsolute(target) || target === ".." || target.startsWith("../")) {
        return yield* refuse(spec.attemptDir, `harness file ${relative} is outside the attempt folder`)
      }
      yield* transport.writeFile(path.join(spec.attemptDir, target), content)
    }
    if (spec.stdin !== undefined) yield* transport.writeFile(files.stdin, spec.stdin, { mode: 0o600 })
    const fifo = spec.feedInbox === true ? files.feed : spec.keepStdinOpen === true ? files.fifo : undefined
    if (fifo !== undefined) {
      // A fenced earlier start may have made it; its wrapper never opened it.
      yield* transport.remove(fifo)
      yield* transport.makeFifo(fifo)
    }
    yield* transport.writeFile(files.env, environment, { mode: 0o600 })
    const argv = spec.sandbox === undefined ? spec.argv : (yield* sandboxed(transport, spec, spec.sandbox)).argv

    const start = new SessionStart({
      generation: Option.match(previous, { onNone: () => 1, onSome: (p) => p.generation + 1 }),
      stdin: spec.feedInbox === true ? "feed" : spec.keepStdinOpen === true ? "fifo" : spec.stdin === undefined ? "none" : "file",
      startedAt: yield* Clock.currentTimeMillis
    })
    yield* transport.writeFile(files.starting, encodeSessionStart(start))
    // An interruption between the spawn and the record would leave an agent nobody follows.
    return yield* Effect.uninterruptible(
      Effect.gen(function* () {
        const stat = yield* transport.spawnDetached({
          argv: ["/bin/sh", "-c", wrapperScript, "usine-session", spec.attemptDir, claimName(start.generation), ...argv],
          cwd: spec.workdir,
          env: {}
        })
        const record = new SessionRecord({
          host: transport.host,
          pid: stat.pid,
          pgid: stat.pgid,
          startTime: stat.startTime,
          attemptDir: spec.attemptDir,
          stdin: start.stdin,
          startedAt: start.startedAt
        })
        const handle = encodeHandle(record)
        yield* transport.writeFile(files.session, handle)
        return { record, handle }
      })
    )
  })

/** Absolute paths an argument names, alone or inside a command line (`sh -c "sleep 1; exec node /opt/agent.mjs"`). */
const namedPaths = (arg: string): ReadonlyArray<string> =>
  [...arg.matchAll(/(?:^|[\s'"=:;])(\/[^\s'";]+)/g)].flatMap((match) => (match[1] === undefined ? [] : [match[1]]))

/** The agent's argv in its sandbox: the harness's folders writable, its binary and the files its argv names visible. */
const sandboxed = (transport: WorkerTransportShape, spec: SessionSpec, sandbox: SessionSandbox) => {
  const harnessDirs = Object.keys(spec.files ?? {}).flatMap((relative) => {
    const top = path.normalize(relative).split("/")
    return top.length > 1 && top[0] !== undefined ? [path.join(spec.attemptDir, top[0])] : []
  })
  const [program = "", ...args] = spec.argv
  return sandboxCommand(transport, {
    ...sandbox,
    dir: spec.attemptDir,
    workdir: spec.workdir,
    writable: [...sandbox.writable, ...harnessDirs],
    tools: [program, ...args.flatMap(namedPaths), ...sandbox.tools],
    path: spec.env["PATH"],
    argv: spec.argv
  })
}
