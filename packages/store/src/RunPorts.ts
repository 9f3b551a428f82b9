import type { AttemptLifecycle } from "./AttemptLifecycle"
import type { AttemptPatches } from "./AttemptPatches"
import type { CycleBudgets } from "./CycleBudgets"
import type { LoopPauses } from "./LoopPauses"
import type { OperatorActions } from "./OperatorActions"
import type { ParkedRuns } from "./ParkedRuns"
import type { PushRecords } from "./PushRecords"
import type { RunClaims } from "./RunClaims"
import type { RunLookup } from "./RunLookup"
import type { Transcripts } from "./Transcripts"

/** Every Run port of the ledger by role (ADR 0096); `SqlRunStore.layer` provides them all, and `RunReads`, from one store. */
export type RunPorts =
  | RunClaims
  | OperatorActions
  | ParkedRuns
  | AttemptLifecycle
  | AttemptPatches
  | PushRecords
  | Transcripts
  | LoopPauses
  | CycleBudgets
  | RunLookup
