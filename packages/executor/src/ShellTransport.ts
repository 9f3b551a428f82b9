import { Effect, Option } from "effect"
import * as path from "node:path/posix"
import { fileLockScript, holdFileLock } from "./holdFileLock"
import { parseProcStat, parseProcStats } from "./ProcStat"
import type { ProcessResult } from "./runProcess"
import { shellCommand, shellQuote as q } from "./shellQuote"
import {
  HostCommandTimedOut,
  HostOperationFailed,
  type TransportError,
  type WorkerTransportShape
} from "./WorkerTransport"

export type ShellResult = ProcessResult

/** Runs one POSIX `sh` script on a host, the script fed on stdin (`sh -s`) so nothing of it shows in `ps`. */
export interface ShellRunner {
  readonly host: string
  /** Keeps the last `maxOutputBytes` of each output (`EXEC_OUTPUT_BYTES` when absent), counting the rest. */
  readonly run: (
    script: string,
    options?: { readonly timeoutMs?: number; readonly maxOutputBytes?: number }
  ) => Effect.Effect<ShellResult, TransportError>
  /** The local argv that runs a shell command line on the host for as long as it lasts, stdin and stdout connected. */
  readonly argvFor: (commandLine: string) => ReadonlyArray<string>
  /** The local command's exit status that means the host was not reached (ssh's 255). */
  readonly unreachableExit?: number
}

/** Reserved exit statuses of the scripts below. */
const ABSENT = 3
const NO_DIRECTORY = 254

/** The lines of a here-document carrying `content` in base64, its end marker included. */
const base64Lines = (content: string | Uint8Array): string =>
  `${Buffer.from(content).toString("base64").replace(/.{1,76}/g, "$&\n")}USINE_BASE64`

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8")

/**
 * A Worker transport made only of shell scripts (ADR 0015): the same operations as `LocalTransport`, for any
 * Linux host a `ShellRunner` reaches, over SSH in production and through a local `sh` in the contract tests.
 * Needs `base64`, `realpath -m`, `setsid`, `timeout` and `/proc` on the host.
 */
export const make = (runner: ShellRunner): WorkerTransportShape => {
  const host = runner.host
  const failed = (operation: string, result: ShellResult) =>
    new HostOperationFailed({ host, operation, detail: result.stderr.trim() || `exit ${result.exitCode}` })

  /** Runs a script wrapped so no command can read the rest of the script from stdin. */
  const script = (body: string, timeoutMs?: number, maxOutputBytes?: number) =>
    runner.run(`{\n${body}\n} </dev/null\n`, {
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(maxOutputBytes === undefined ? {} : { maxOutputBytes })
    })

  // A file operation's output is whole or it failed: a cut one would pass for the file's content.
  const checked = (operation: string, body: string, ok: ReadonlyArray<number> = [0]) =>
    script(body).pipe(
      Effect.filterOrFail(
        (result) => result.outputDropped === 0,
        (result) =>
          new HostOperationFailed({ host, operation, detail: `output larger than kept: ${result.outputDropped} bytes dropped` })
      ),
      Effect.filterOrFail(
        (result) => ok.includes(result.exitCode),
        (result) => failed(operation, result)
      )
    )

  const exec: WorkerTransportShape["exec"] = (command) =>
    Effect.gen(function* () {
      const entries = Object.entries(command.env ?? {})
      const invalid = entries.find(([key]) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))
      if (invalid !== undefined) {
        return yield* new HostOperationFailed({ host, operation: "exec", detail: `invalid variable name ${invalid[0]}` })
      }
      const exports = entries.map(([key, value]) => `export ${key}=${q(value)}\n`)
      const cd = command.cwd === undefined ? "" : `cd ${q(command.cwd)} 2>/dev/null || exit ${NO_DIRECTORY}\n`
      const seconds = command.timeoutMs === undefined ? undefined : Math.max(1, Math.ceil(command.timeoutMs / 1000))
      const run = `${seconds === undefined ? "" : `timeout -k 5 ${seconds} `}${shellCommand(command.argv)}`
      const full =
        command.stdin === undefined
          ? `${exports.join("")}${cd}${run} </dev/null`
          : `${exports.join("")}${cd}base64 -d <<'USINE_BASE64' | ${run}\n${base64Lines(command.stdin)}`
      const result = yield* script(
        full,
        command.timeoutMs === undefined ? undefined : command.timeoutMs + 10_000,
        command.maxOutputBytes
      )
      if (result.exitCode === NO_DIRECTORY) return yield* failed(`cd ${command.cwd}`, result)
      if (seconds !== undefined && result.exitCode === 124) {
        return yield* new HostCommandTimedOut({ host, command: command.argv[0] ?? "", timeoutMs: command.timeoutMs ?? 0 })
      }
      return { exitCode: result.exitCode, stdout: text(result.stdout), stderr: result.stderr, outputDropped: result.outputDropped }
    })

  const spawnDetached: WorkerTransportShape["spawnDetached"] = (command) =>
    Effect.gen(function* () {
      const env = Object.entries(command.env).map(([key, value]) => q(`${key}=${value}`))
      // setsid does not fork when its caller leads no group, so $! is the session's pid. The process stops
      // itself before its command starts, so its stat is read before it can exit and be reaped.
      const result = yield* checked(
        "spawn session",
        `cd ${q(command.cwd)} || exit ${NO_DIRECTORY}
setsid env -i ${env.join(" ")} /bin/sh -c 'kill -STOP $$; exec "$@"' sh ${shellCommand(command.argv)} </dev/null >/dev/null 2>&1 &
pid=$!
i=0
while :; do
  s=$(sed 's/^.*) //' /proc/$pid/stat) || exit 1
  set -- $s
  [ "$1" = T ] && [ "$3" = "$pid" ] && break
  i=$((i+1)); [ $i -lt 1000 ] || exit 1
  sleep 0.01
done
cat /proc/$pid/stat
kill -CONT $pid`
      )
      const stat = parseProcStat(text(result.stdout))
      if (Option.isNone(stat)) return yield* failed("spawn session", result)
      return stat.value
    })

  const readFile: WorkerTransportShape["readFile"] = (file, options) => {
    const offset = options?.offset ?? 0
    const limit = options?.maxBytes === undefined ? "" : ` | head -c ${options.maxBytes}`
    const read = options?.maxBytes === 0 ? ":" : `tail -c +${offset + 1} ${q(file)}${limit}`
    return checked(`read ${file}`, `[ -e ${q(file)} ] || exit ${ABSENT}\n${read}`, [0, ABSENT]).pipe(
      Effect.map((result) => (result.exitCode === ABSENT ? Option.none() : Option.some(result.stdout)))
    )
  }

  const writeFile: WorkerTransportShape["writeFile"] = (file, content, options) => {
    const mode = (options?.mode ?? 0o644).toString(8)
    return checked(
      `write ${file}`,
      `mkdir -p ${q(path.dirname(file))} || exit 1
t=${q(file)}.$$.tmp
: >"$t" && chmod ${mode} "$t" && base64 -d >"$t" <<'USINE_BASE64' && mv -f "$t" ${q(file)}
${base64Lines(content)}`
    ).pipe(Effect.asVoid)
  }

  const appendFile: WorkerTransportShape["appendFile"] = (file, content) =>
    checked(
      `append ${file}`,
      // Opening a FIFO nobody reads would block: give up after a few seconds.
      `[ -e ${q(file)} ] || exit ${ABSENT}
base64 -d <<'USINE_BASE64' | timeout 2 sh -c 'exec cat >>"$1"' sh ${q(file)} || exit ${ABSENT}
${base64Lines(content)}`,
      [0, ABSENT]
    ).pipe(Effect.map((result) => result.exitCode === 0))

  const processInfo = (pid: number) =>
    checked("read process", `cat /proc/${pid}/stat 2>/dev/null || exit ${ABSENT}`, [0, ABSENT]).pipe(
      Effect.map((result) => (result.exitCode === ABSENT ? Option.none() : parseProcStat(text(result.stdout))))
    )

  const groupMembers = (pgid: number) =>
    checked("list process group", `kill -0 -${pgid} 2>/dev/null || exit 0\ncat /proc/[0-9]*/stat 2>/dev/null\nexit 0`).pipe(
      Effect.map((result) => parseProcStats(text(result.stdout)).filter((stat) => stat.pgid === pgid))
    )

  return {
    host,
    exec,
    spawnDetached,
    readFile,
    writeFile,
    appendFile,
    makeFifo: (file) => checked(`mkfifo ${file}`, `mkfifo -m 600 ${q(file)}`).pipe(Effect.asVoid),
    makeDirectory: (dir) => checked(`mkdir ${dir}`, `mkdir -p ${q(dir)}`).pipe(Effect.asVoid),
    remove: (target) => checked(`remove ${target}`, `rm -rf ${q(target)}`).pipe(Effect.asVoid),
    listDirectory: (dir) =>
      checked(
        `list ${dir}`,
        `cd ${q(dir)} 2>/dev/null || exit 0
for f in * .[!.]* ..?*; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\\0' "$f"; fi; done`
      ).pipe(Effect.map((result) => text(result.stdout).split("\0").filter((name) => name !== "").sort())),
    realPath: (target) =>
      checked(`realpath ${target}`, `realpath -m ${q(target)}`).pipe(Effect.map((result) => text(result.stdout).trim())),
    processInfo,
    groupMembers,
    lockFile: (file, note) =>
      holdFileLock(
        host,
        runner.argvFor(shellCommand(["sh", "-c", fileLockScript, "usine-lock", file, note])),
        runner.unreachableExit === undefined ? {} : { unreachableExit: runner.unreachableExit }
      ),
    signalGroup: (pgid, signal) =>
      script(`kill -${signal === "SIGTERM" ? "TERM" : "KILL"} -${pgid} 2>/dev/null`).pipe(
        Effect.map((result) => result.exitCode === 0)
      )
  }
}
