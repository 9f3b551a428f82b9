import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Submission } from "@usine/core/event/Submission"
import { itemEventIdOf, tickEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf, scheduleItemKeyOf } from "@usine/core/ids/ItemKey"
import { TriggerCondition } from "@usine/engine/TriggerCondition"
import type { QueuedEvent } from "@usine/store/RunClaims"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { GitHubTriggerCondition } from "@usine/triggers/GitHubTriggerCondition"
import { ObserveItem } from "@usine/triggers/ObserveItem"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"
import { settingsOf } from "./support/settingsOf"
import { REPOSITORY, SimGitHub } from "./support/SimGitHub"
import { TestLedger } from "./support/TestLedger"

const settings = settingsOf(`repositories: [acme/widgets]
loops:
  - name: start-dev
    on: issues
    if: '"ready-for-agent" in item.labels'
    prompt: "Work on {{ item.title }}"
    agent: codex
`)

const world = GitHubTriggerCondition.pipe(
  Layer.provide(ObserveItem.Default),
  Layer.provideMerge(Layer.mergeAll(TestLedger, SimGitHub, TriggerConfig.fixed(settings)))
)

const queued = (loop: string, number: number | undefined): QueuedEvent => {
  const submission: Submission = {
    eventId:
      number === undefined
        ? tickEventIdOf({ loop, repository: REPOSITORY, scheduledAt: "2026-03-28T08:00:00.000Z" })
        : itemEventIdOf({ loop, repository: REPOSITORY, number, contentHash: "h", generation: 0 }),
    loop,
    itemKey: number === undefined ? scheduleItemKeyOf(REPOSITORY) : itemKeyOf(REPOSITORY, number),
    repository: REPOSITORY,
    ...(number === undefined ? {} : { number }),
    generation: 0,
    task: "t",
    agent: "codex",
    approvalRequired: false,
    receivedAt: 0
  }
  return { eventId: submission.eventId, loop, itemKey: submission.itemKey, receivedAt: 0, submission }
}

describe("GitHubTriggerCondition", () => {
  it.live("reads the Item again and evaluates the Loop's if: on it", () =>
    Effect.gen(function* () {
      const sim = yield* GitHubSim
      const condition = yield* TriggerCondition
      yield* sim.control.createIssue({ repo: REPOSITORY, title: "Fix it", labels: ["ready-for-agent"] })
      assert.isTrue(yield* condition.holds(queued("start-dev", 1)))
      yield* sim.control.removeLabel({ repo: REPOSITORY, number: 1, label: "ready-for-agent" })
      assert.isFalse(yield* condition.holds(queued("start-dev", 1)))
      assert.isFalse(yield* condition.holds(queued("start-dev", 99)), "an Item that is gone no longer matches")
      assert.isTrue(yield* condition.holds(queued("nightly", undefined)), "a Tick has nothing to read again")
      const unknown = yield* Effect.flip(condition.holds(queued("retired", 1)))
      assert.strictEqual(unknown._tag, "TriggerConditionUnavailable")
    }).pipe(Effect.provide(world), Effect.orDie)
  )
})
