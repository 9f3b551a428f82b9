import type { WorkerSandbox } from "@usine/core/config/WorkerConfig"
import type { ConfinementSettings } from "./Sandbox/Confinement"
import type { WorkerTransportShape } from "./WorkerTransport"

/**
 * What the directory answers for a Worker's name: this machine or an ssh host, its transport and root, how it is
 * confined. The executor opens an `ExecutorWorker` from it on first use.
 */
export interface WorkerEntry {
  readonly transport: WorkerTransportShape
  /** Where workspaces live on that host (`mirrors/`, `attempts/`, lent `credentials/`). */
  readonly root: string
  /** How its agents and `verify` commands are confined (ADR 0054); `bubblewrap` when absent. */
  readonly sandbox?: WorkerSandbox | undefined
  /** The uid a root daemon's sandbox switches to and the limits (ADR 0084); the defaults when absent. */
  readonly confinement?: ConfinementSettings | undefined
}

/**
 * The Workers the executor runs on, asked by name at each use (ADR 0077): the app answers from the Workers in force,
 * so a reload changes the answers, and a Worker is known by the entry it answers, not only its name.
 */
export interface WorkerDirectory {
  readonly get: (name: string) => WorkerEntry | undefined
  readonly names: () => ReadonlyArray<string>
}

export const WorkerDirectory = {
  /** Answers from `record` at each call: a fixed set of Workers, or one a test changes in place. */
  of: (record: Readonly<Record<string, WorkerEntry>>): WorkerDirectory => ({
    get: (name) => record[name],
    names: () => Object.keys(record)
  })
}
