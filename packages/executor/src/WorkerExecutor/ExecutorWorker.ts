import { Effect } from "effect"
import type { WorkerSandbox } from "@usine/core/config/WorkerConfig"
import * as DurableSession from "../DurableSession"
import { type ConfinementSettings, DEFAULT_CONFINEMENT } from "../Sandbox/Confinement"
import type { WorkerEntry } from "../WorkerDirectory"
import type { TransportError, WorkerTransportShape } from "../WorkerTransport"
import * as Workspace from "../Workspace"

/**
 * A Worker this executor runs Attempts on, opened from its directory entry on first use: its transport, its
 * workspace root made and resolved, its sessions.
 */
export interface ExecutorWorker {
  readonly name: string
  readonly transport: WorkerTransportShape
  readonly workspace: Workspace.Workspace
  readonly sessions: DurableSession.DurableSession
  /** How its agents and `verify` commands are confined now (ADR 0054): a reload may change it in place (ADR 0077). */
  readonly sandbox: () => WorkerSandbox
  /** The uid and limits of its sandboxes now (ADR 0084), asked at each use like `sandbox`. */
  readonly confinement: () => ConfinementSettings
}

export const ExecutorWorker = {
  /** Opens the Worker `entry` names: makes its workspace root, which fails when the host cannot be reached. */
  open: (name: string, entry: WorkerEntry): Effect.Effect<ExecutorWorker, TransportError> =>
    Effect.map(Workspace.make({ transport: entry.transport, root: entry.root }), (workspace) => ({
      name,
      transport: entry.transport,
      workspace,
      sessions: DurableSession.make(entry.transport),
      // Asked at each use: a reload may change it without replacing the Worker.
      sandbox: () => entry.sandbox ?? "bubblewrap",
      confinement: () => entry.confinement ?? DEFAULT_CONFINEMENT
    }))
}
