import { Cause, Clock, Duration, Effect, Ref } from "effect"
import type { ScheduleLoop } from "@usine/core/config/CompiledLoop"
import { evaluateIf } from "@usine/core/config/evaluateIf"
import { renderPrompt } from "@usine/core/config/renderPrompt"
import type { TriggerContext } from "@usine/core/config/TriggerContext"
import type { Submission } from "@usine/core/event/Submission"
import { tickEventIdOf } from "@usine/core/ids/EventId"
import { scheduleItemKeyOf } from "@usine/core/ids/ItemKey"
import type { TickItem } from "./ItemFields"
import { LoopControl } from "./LoopControl"
import { PollFailures } from "./PollFailures"
import { latestTickAtOrBefore, nextTickAfter, tickFieldsOf } from "./ScheduleTick"
import { activeScheduleLoops, TriggerConfig } from "./TriggerConfig"
import { type ClaimOutcome, TriggerSink } from "./TriggerSink"

/** The longest sleep between wakes, so a changed clock or a long-dormant pattern is noticed. */
const MAX_SCHEDULE_SLEEP = Duration.seconds(60)

/** What one Tick did in one repository. */
type TickVerdict =
  | { readonly _tag: "Submitted"; readonly submission: Submission; readonly claim: ClaimOutcome }
  | { readonly _tag: "Skipped"; readonly repository: string }
  /** `if:` or the prompt failed: reported, and the Tick counts as fired. */
  | { readonly _tag: "Failed"; readonly repository: string; readonly message: string }
  /** The engine refused the Event: reported, and the Tick is tried again at the next wake. */
  | { readonly _tag: "Refused"; readonly repository: string; readonly message: string }

interface FiredTick {
  readonly loop: string
  readonly scheduledAt: string
  readonly verdicts: ReadonlyArray<TickVerdict>
}

/** The Submission of one Tick in one repository; its Event id is `[loop, repository, scheduledAt]`. */
const tickSubmission = (
  loop: ScheduleLoop,
  repository: string,
  scheduledAt: string,
  task: string,
  receivedAt: number
): Submission => ({
  eventId: tickEventIdOf({ loop: loop.name, repository, scheduledAt }),
  loop: loop.name,
  itemKey: scheduleItemKeyOf(repository),
  repository,
  generation: 0,
  task,
  agent: loop.agent,
  approvalRequired: loop.approval === "required",
  receivedAt
})

/**
 * Schedule Loops: at each wake, the latest Tick at or before now fires once per Loop, one Event per selected
 * repository whose `if:` holds. The fired map lives in memory: after a restart the latest missed Tick fires once
 * and the ledger discards a repeat.
 */
export class ScheduleTriggers extends Effect.Service<ScheduleTriggers>()("usine/ScheduleTriggers", {
  effect: Effect.gen(function* () {
    const config = yield* TriggerConfig
    const control = yield* LoopControl
    const sink = yield* TriggerSink
    const failures = yield* PollFailures
    const fired = yield* Ref.make<ReadonlyMap<string, number>>(new Map())

    const fireIn = (loop: ScheduleLoop, repository: string, at: number) =>
      Effect.gen(function* () {
        const tick = tickFieldsOf(loop.schedule, at)
        const item: TickItem = { kind: "tick", tick }
        const context: TriggerContext = { item, repository }
        if (!(yield* evaluateIf(loop, context))) return { _tag: "Skipped", repository } satisfies TickVerdict
        const task = yield* renderPrompt(loop, context)
        const submission = tickSubmission(loop, repository, tick.scheduledAt, task, yield* Clock.currentTimeMillis)
        const claim = yield* sink.submit(submission)
        return { _tag: "Submitted", submission, claim } satisfies TickVerdict
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(failures.record({ repository, loop: loop.name, item: undefined, message: error.message }), {
            _tag: error._tag === "TriggerRefused" ? "Refused" : "Failed",
            repository,
            message: error.message
          } satisfies TickVerdict)
        )
      )

    const markFired = (loop: string, at: number) => Ref.update(fired, (m) => new Map(m).set(loop, at))

    /** Fires every Loop's latest due Tick not fired yet; a paused Loop's Tick is passed over, not kept for later. */
    const fireDue = Effect.fn("ScheduleTriggers.fireDue")(function* () {
      const now = yield* Clock.currentTimeMillis
      const paused = yield* control.pausedLoops
      const settings = config.current()
      const active = new Set(activeScheduleLoops(settings, paused).map((loop) => loop.name))
      const done: Array<FiredTick> = []
      for (const loop of settings.loops) {
        if (loop.on !== "schedule") continue
        const at = latestTickAtOrBefore(loop.schedule, now)
        if (at === undefined || ((yield* Ref.get(fired)).get(loop.name) ?? -Infinity) >= at) continue
        if (!active.has(loop.name)) {
          yield* markFired(loop.name, at)
          continue
        }
        const verdicts = yield* Effect.forEach(loop.repositories, (repository) => fireIn(loop, repository, at))
        // A refused submission is tried again at the next wake; the ledger drops what did get through.
        if (!verdicts.some((v) => v._tag === "Refused")) yield* markFired(loop.name, at)
        done.push({ loop: loop.name, scheduledAt: new Date(at).toISOString(), verdicts })
      }
      return done
    })

    /** When to wake next: the earliest next Tick of an active Loop, at most `MAX_SCHEDULE_SLEEP` away. */
    const nextWake = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const paused = yield* control.pausedLoops
      const ticks = activeScheduleLoops(config.current(), paused).flatMap((loop) => nextTickAfter(loop.schedule, now) ?? [])
      return Math.min(now + Duration.toMillis(MAX_SCHEDULE_SLEEP), ...ticks)
    })

    /** Fires due Ticks until interrupted. */
    const run = Effect.forever(
      Effect.gen(function* () {
        yield* fireDue().pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.logError("schedule wake failed", cause)
          )
        )
        const wake = yield* nextWake
        yield* Effect.sleep(Duration.millis(Math.max(0, wake - (yield* Clock.currentTimeMillis))))
      })
    )

    return { fireDue, nextWake, run }
  }),
  dependencies: [PollFailures.Default]
}) {}
