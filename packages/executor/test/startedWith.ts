import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type * as DurableSession from "../src/DurableSession"
import type { SessionSpec } from "../src/DurableSession/startSession"
import { groupExists } from "./groupProcesses"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" }

/** Starts a session in a fresh folder; the scope kills whatever of its group is left. */
export const startedWith = (sessions: DurableSession.DurableSession) => (
  spec: Omit<SessionSpec, "attemptDir" | "workdir" | "env"> & { env?: Record<string, string> }
) =>
  Effect.gen(function* () {
    const dir = yield* scopedTempDir()
    const workdir = path.join(dir, "worktree")
    fs.mkdirSync(workdir)
    const session = yield* sessions.start({ env, ...spec, attemptDir: path.join(dir, "attempt"), workdir })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (groupExists(session.record.pgid)) process.kill(-session.record.pgid, "SIGKILL")
      })
    )
    return session
  })

