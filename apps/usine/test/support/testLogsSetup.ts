import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { Data } from "effect"
import type { TestProject } from "vitest/node"
import { scanProblems, scanTestLogs } from "./scanTestLogs"
import { testLogsDir } from "./testLogsDir"

declare module "vitest" {
  export interface ProvidedContext {
    /** This run's archive folder, given to the tests by the global setup. */
    readonly usineTestLogs: string
  }
}

/** Fewer daemons than this in a full run means the archiving broke, not that the suite is clean (about 19 start). */
export const MINIMUM_DAEMONS = 10

export class TestLogsRejected extends Data.TaggedError("TestLogsRejected")<{
  readonly dir: string
  readonly problems: ReadonlyArray<string>
}> {
  override get message() {
    return `the token scan of ${this.dir} failed:\n${this.problems.map((p) => `  ${p}`).join("\n")}`
  }
}

const runDir = join(testLogsDir, `run-${process.pid}`)

const running = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Archives of earlier runs go; those of runs still going in this checkout stay. */
const removeFinishedRuns = () => {
  mkdirSync(testLogsDir, { recursive: true })
  for (const name of readdirSync(testLogsDir)) {
    const pid = /^run-(\d+)$/.exec(name)?.[1]
    if (pid === undefined || Number(pid) === process.pid || !running(Number(pid))) {
      rmSync(join(testLogsDir, name), { recursive: true, force: true })
    }
  }
}

/**
 * Vitest global setup of @usine/app (ADR 0043): the run starts with an empty archive of its own and ends by scanning
 * it; a throw here makes `vitest run` exit 1. `USINE_TEST_LOGS=full` (the root `test` script) also enforces the
 * minimum, which a partial run (one file, `test:unit` filtered) cannot meet.
 */
export const setup = (project: TestProject) => {
  removeFinishedRuns()
  mkdirSync(runDir)
  project.provide("usineTestLogs", runDir)
}

export const teardown = () => {
  const full = process.env["USINE_TEST_LOGS"] === "full"
  const scan = scanTestLogs(runDir)
  console.log(
    `token scan of ${runDir}: ${scan.files} archived files, ${scan.daemons} daemons, ${scan.daemonLogs} daemon logs, ` +
      `${scan.found.length} tokens found` + (full ? ` (full run: at least ${MINIMUM_DAEMONS} daemons)` : " (partial run: no minimum)")
  )
  const problems = scanProblems(scan, full ? MINIMUM_DAEMONS : 0)
  if (problems.length > 0) throw new TestLogsRejected({ dir: runDir, problems })
}
