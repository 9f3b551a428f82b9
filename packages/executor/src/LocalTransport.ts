import { Effect, Layer, Option, Schedule } from "effect"
import { spawn } from "node:child_process"
import { childEnvironment } from "./childEnvironment"
import * as fs from "node:fs"
import { hostname } from "node:os"
import * as path from "node:path"
import { fileLockScript, holdFileLock } from "./holdFileLock"
import { parseProcStat, parseProcStats, type ProcStat } from "./ProcStat"
import { runProcess } from "./runProcess"
import { HostOperationFailed, WorkerTransport, type WorkerTransportShape } from "./WorkerTransport"

const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined

/**
 * The local machine as a Worker's host. Small file and /proc operations are synchronous: they take
 * microseconds, and a follower polling under `TestClock` then never waits on a thread pool.
 */
export const make = (host: string = hostname()): WorkerTransportShape => {
  const failed = (operation: string, cause: unknown) =>
    new HostOperationFailed({ host, operation, detail: cause instanceof Error ? cause.message : String(cause) })

  const io = <A>(operation: string, f: () => A) => Effect.try({ try: f, catch: (cause) => failed(operation, cause) })

  const exec: WorkerTransportShape["exec"] = Effect.fn("LocalTransport.exec")(function* (command) {
    const result = yield* runProcess(host, { ...command, env: childEnvironment(command.env) })
    return {
      exitCode: result.exitCode,
      stdout: Buffer.from(result.stdout).toString("utf8"),
      stderr: result.stderr,
      outputDropped: result.outputDropped
    }
  })

  const processInfo = (pid: number) =>
    io("read process", () => {
      try {
        return parseProcStat(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))
      } catch (cause) {
        if (errorCode(cause) === "ENOENT" || errorCode(cause) === "ESRCH") return Option.none<ProcStat>()
        throw cause
      }
    })

  const spawnDetached: WorkerTransportShape["spawnDetached"] = (command) =>
    io("spawn session", () => {
      const [file, ...args] = command.argv
      if (file === undefined) throw new Error("empty argv")
      const child = spawn(file, args, { cwd: command.cwd, env: { ...command.env }, detached: true, stdio: "ignore" })
      child.on("error", () => {})
      if (child.pid === undefined) throw new Error(`cannot start ${file} in ${command.cwd}`)
      child.unref()
      // Read in the same tick as the spawn: the child cannot have been reaped yet.
      const stat = parseProcStat(fs.readFileSync(`/proc/${child.pid}/stat`, "utf8"))
      if (Option.isNone(stat)) throw new Error(`unreadable /proc/${child.pid}/stat`)
      return stat.value
    })

  const readFile: WorkerTransportShape["readFile"] = (file, options) =>
    io(`read ${file}`, () => {
      let fd: number
      try {
        fd = fs.openSync(file, "r")
      } catch (cause) {
        if (errorCode(cause) === "ENOENT") return Option.none()
        throw cause
      }
      try {
        const offset = options?.offset ?? 0
        const size = fs.fstatSync(fd).size
        const length = Math.max(0, Math.min(size - offset, options?.maxBytes ?? Number.MAX_SAFE_INTEGER))
        const buffer = Buffer.alloc(length)
        let read = 0
        while (read < length) {
          const n = fs.readSync(fd, buffer, read, length - read, offset + read)
          if (n === 0) break
          read += n
        }
        return Option.some(new Uint8Array(buffer.buffer, buffer.byteOffset, read))
      } finally {
        fs.closeSync(fd)
      }
    })

  const writeFile: WorkerTransportShape["writeFile"] = (file, content, options) =>
    io(`write ${file}`, () => {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
      fs.writeFileSync(temporary, content, { mode: options?.mode ?? 0o644 })
      fs.renameSync(temporary, file)
    })

  const openForAppend = (file: string) =>
    io(`open ${file}`, () => {
      try {
        return Option.some(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NONBLOCK))
      } catch (cause) {
        if (errorCode(cause) === "ENXIO" || errorCode(cause) === "ENOENT") return Option.none<number>()
        throw cause
      }
    })

  const appendFile: WorkerTransportShape["appendFile"] = (file, content) =>
    Effect.acquireUseRelease(
      openForAppend(file),
      Option.match({
        onNone: () => Effect.succeed(false),
        onSome: (fd) => {
          const bytes = Buffer.from(content, "utf8")
          let written = 0
          // A full pipe answers EAGAIN; retry until the reader drains it.
          const step = io(`append ${file}`, () => {
            while (written < bytes.length) {
              try {
                written += fs.writeSync(fd, bytes, written)
              } catch (cause) {
                if (errorCode(cause) === "EAGAIN") return false
                throw cause
              }
            }
            return true
          })
          return step.pipe(
            Effect.repeat({ until: (finished) => finished, schedule: Schedule.spaced("20 millis") }),
            Effect.interruptible,
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => failed(`append ${file}`, "nobody reads") }),
            Effect.as(true)
          )
        }
      }),
      Option.match({ onNone: () => Effect.void, onSome: (fd) => Effect.sync(() => fs.closeSync(fd)) })
    )

  const makeFifo = (file: string) =>
    exec({ argv: ["mkfifo", "-m", "600", file] }).pipe(
      Effect.flatMap((result) =>
        result.exitCode === 0 ? Effect.void : Effect.fail(failed(`mkfifo ${file}`, result.stderr.trim()))
      )
    )

  const makeDirectory = (dir: string) => io(`mkdir ${dir}`, () => void fs.mkdirSync(dir, { recursive: true }))

  const remove = (target: string) => io(`remove ${target}`, () => fs.rmSync(target, { recursive: true, force: true }))

  const listDirectory = (dir: string) =>
    io(`list ${dir}`, () => {
      try {
        return fs.readdirSync(dir).sort()
      } catch (cause) {
        if (errorCode(cause) === "ENOENT") return []
        throw cause
      }
    })

  const realPath = (target: string) =>
    io(`realpath ${target}`, () => {
      let existing = path.resolve(target)
      const missing: Array<string> = []
      for (;;) {
        try {
          return path.join(fs.realpathSync(existing), ...missing)
        } catch (cause) {
          if (errorCode(cause) !== "ENOENT" || existing === path.dirname(existing)) throw cause
          missing.unshift(path.basename(existing))
          existing = path.dirname(existing)
        }
      }
    })

  const groupMembers = (pgid: number) =>
    io("list process group", () => {
      try {
        process.kill(-pgid, 0)
      } catch (cause) {
        if (errorCode(cause) === "ESRCH") return []
      }
      const lines: Array<string> = []
      for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue
        try {
          lines.push(fs.readFileSync(`/proc/${entry}/stat`, "utf8"))
        } catch {
          // exited while we listed
        }
      }
      return parseProcStats(lines.join("\n")).filter((stat) => stat.pgid === pgid)
    })

  const signalGroup = (pgid: number, signal: "SIGTERM" | "SIGKILL") =>
    io(`signal group ${pgid}`, () => {
      try {
        process.kill(-pgid, signal)
        return true
      } catch (cause) {
        if (errorCode(cause) === "ESRCH") return false
        throw cause
      }
    })

  return {
    host,
    exec,
    spawnDetached,
    readFile,
    writeFile,
    appendFile,
    makeFifo,
    makeDirectory,
    remove,
    listDirectory,
    realPath,
    processInfo,
    groupMembers,
    signalGroup,
    lockFile: (file, note) => holdFileLock(host, ["/bin/sh", "-c", fileLockScript, "usine-lock", file, note])
  }
}

/** The local machine as the Worker transport in context. */
export const layer = Layer.sync(WorkerTransport, () => make())

