import { Layer } from "effect"
import { RunDriver } from "@usine/engine/RunDriver"
import { RunEngine } from "@usine/engine/RunEngine"
import { Shutdown } from "@usine/engine/Shutdown"
import { WorkerSlots } from "@usine/engine/WorkerSlots"
import { PoliciesLayer } from "./PoliciesLayer"

/**
 * The engine with its Loop policies read from the configuration in force. The WorkerSlots and the Shutdown latch are
 * built once here and kept in the output, so the Workers page reads the same slots the Run fibers take. Building it
 * recovers workspaces and reconciles.
 */
export const EngineLayer = RunEngine.DefaultWithoutDependencies.pipe(
  Layer.provideMerge(RunDriver.DefaultWithoutDependencies),
  Layer.provideMerge(Layer.mergeAll(WorkerSlots.Default, Shutdown.Default)),
  Layer.provideMerge(PoliciesLayer)
)
