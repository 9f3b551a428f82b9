import { Deferred, Duration, Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import type { HarnessInvocation } from "@usine/executor/harness/Harness"
import { livingInGroup } from "./processGroup"

/** What to do with the stdin of a CLI fed on it, after a stdout line: write more input (an idle probe), or close it. */
export type StdinStep = { readonly _tag: "Write"; readonly input: string } | { readonly _tag: "Close" }

/** A stdout line and when it arrived (ms since the process started). */
export interface TimedLine {
  readonly at: number
  readonly text: string
}

export interface Exited {
  readonly code: number | null
  readonly signal: string | null
}

export interface CliProcess {
  readonly pgid: number
  /** Stdout lines so far (a live array). */
  readonly lines: ReadonlyArray<TimedLine>
  readonly stderr: () => string
  /** Waits for the exit, failing after `timeout`. */
  readonly exited: (timeout: Duration.DurationInput) => Effect.Effect<Exited, string>
  /** Waits until a stdout line satisfies `predicate`, failing after `timeout`. */
  readonly lineWhere: (predicate: (line: string) => boolean, timeout: Duration.DurationInput) => Effect.Effect<TimedLine, string>
  /** SIGKILLs the whole process group and waits until none of it is left. */
  readonly killGroup: Effect.Effect<void>
}

/**
 * Starts a harness invocation as the executor does: its files written into the Attempt's folder, exactly `env`
 * (nothing inherited), the prompt on stdin, in a process group of its own. The scope's finalizer kills the group:
 * Codex's npm launcher is a Node process whose native child would otherwise outlive it.
 */
export const startCli = (
  inv: HarnessInvocation,
  options: {
    readonly workdir: string
    readonly attemptDir: string
    readonly env: Readonly<Record<string, string>>
    /**
     * For a CLI whose stdin is its input channel (ADR 0062): fed each stdout line, says what its stdin gets next, as
     * the session's feeder would (the harness's idle probe, then the close once it is idle); without it stdin closes
     * at once after the prompt.
     */
    readonly feedStdin?: (line: string) => StdinStep | undefined
  }
) =>
  Effect.gen(function* () {
    for (const [relative, content] of Object.entries(inv.files)) {
      const path = join(options.attemptDir, relative)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, content)
    }
    const [binary = "", ...args] = inv.argv
    const exit = yield* Deferred.make<Exited>()
    const started = Date.now()
    const lines: Array<TimedLine> = []
    let stderr = ""
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(binary, args, { cwd: options.workdir, env: { ...options.env }, detached: true, stdio: "pipe" })),
      (child) => killGroup(child.pid ?? 0)
    )
    const pgid = child.pid ?? 0
    let partial = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n")
      partial = parts.pop() ?? ""
      for (const text of parts) {
        lines.push({ at: Date.now() - started, text })
        const step = options.feedStdin?.(text)
        if (step === undefined || child.stdin.writableEnded) continue
        if (step._tag === "Write") child.stdin.write(step.input)
        else child.stdin.end()
      }
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (code, signal) => {
      Deferred.unsafeDone(exit, Effect.succeed({ code, signal }))
    })
    if (options.feedStdin === undefined) child.stdin.end(inv.stdin ?? "")
    else child.stdin.write(inv.stdin ?? "")

    const lineWhere = (predicate: (line: string) => boolean, timeout: Duration.DurationInput) =>
      Effect.suspend(() => {
        const found = lines.find((l) => predicate(l.text))
        return found === undefined ? Effect.fail("not yet") : Effect.succeed(found)
      }).pipe(
        Effect.retry(Schedule.spaced("50 millis")),
        Effect.timeoutFail({ duration: timeout, onTimeout: () => `no such line within ${Duration.format(timeout)}; stderr: ${stderr}` })
      )
    const process: CliProcess = {
      pgid,
      lines,
      stderr: () => stderr,
      exited: (timeout) =>
        Deferred.await(exit).pipe(
          Effect.timeoutFail({ duration: timeout, onTimeout: () => `still running after ${Duration.format(timeout)}; stderr: ${stderr}` })
        ),
      lineWhere,
      killGroup: killGroup(pgid)
    }
    return process
  })

const killGroup = (pgid: number) =>
  Effect.gen(function* () {
    if (pgid <= 0) return
    try {
      process.kill(-pgid, "SIGKILL")
    } catch {
      // the group has already ended
    }
    yield* Effect.suspend(() => (livingInGroup(pgid).length === 0 ? Effect.void : Effect.fail("alive"))).pipe(
      Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("5 seconds"))),
      Effect.orDie
    )
  })
