import { Layer } from "effect"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { ScheduleTriggers } from "@usine/triggers/ScheduleTriggers"
import { EngineTriggerSink } from "../daemon/EngineTriggerSink"

/** Polling and schedule triggers, handing their Events to the engine. Their loops are forked by the daemon. */
export const TriggersLayer = Layer.mergeAll(PollingTriggers.Default, ScheduleTriggers.Default).pipe(
  Layer.provide(EngineTriggerSink)
)
