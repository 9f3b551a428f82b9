import { Effect } from "effect"
import { REPOSITORY } from "../../support/daemonConfig"
import type { FaultTable } from "./FaultTable"
import type { ResilienceWorld } from "./ResilienceWorld"

/**
 * One cycle's GitHub activity, chosen at random: always a new issue carrying the Loop's label, and sometimes an issue
 * labeled a moment after it was opened, an edit of an earlier issue (new content: one new Run), a relabel (the same
 * content again: no new Run), an unlabel, or closing the open pull requests as a reviewer would. `matching` tracks
 * the issues whose labels match the Loop now. Returns the new labeled issue.
 */
export const stirIssues = (options: {
  readonly world: ResilienceWorld
  readonly label: string
  readonly random: () => number
  readonly matching: Map<number, ReadonlyArray<string>>
  readonly loop: string
  readonly table: FaultTable
  readonly cycle: number
}) =>
  Effect.gen(function* () {
    const { label, matching, random, table, world } = options
    const control = world.control
    const pick = () => {
      const numbers = [...matching.keys()]
      return numbers[Math.floor(random() * numbers.length)]
    }
    const older = matching.size > 0 ? pick() : undefined
    const roll = random()
    if (older !== undefined && roll < 0.12) {
      yield* world.call(() => control.updateIssue({ repo: REPOSITORY, number: older, body: `edited in cycle ${options.cycle}` }))
      table.inject("issue edited (new content)")
    } else if (older !== undefined && roll < 0.2) {
      yield* world.call(() => control.removeLabel({ repo: REPOSITORY, number: older, label }))
      yield* Effect.sleep("1500 millis")
      yield* world.call(() => control.addLabels({ repo: REPOSITORY, number: older, labels: [label] }))
      table.inject("issue relabeled (same content)")
    } else if (older !== undefined && roll < 0.26) {
      yield* world.call(() => control.removeLabel({ repo: REPOSITORY, number: older, label }))
      matching.delete(older)
      table.inject("label removed")
    }
    if (options.cycle % 8 === 0) {
      const open = (yield* world.pulls).filter((p) => p.state === "open")
      for (const pull of open) yield* world.call(() => control.closePullRequest({ repo: REPOSITORY, number: pull.number }))
      table.inject("pull requests closed by a reviewer", open.length)
    }
    const title = `crash cycle ${options.cycle}`
    let fresh: number
    if (random() < 0.25) {
      fresh = (yield* world.call(() => control.createIssue({ repo: REPOSITORY, title }))).number
      yield* Effect.sleep(`${Math.floor(random() * 1_200)} millis`)
      yield* world.call(() => control.addLabels({ repo: REPOSITORY, number: fresh, labels: [label] }))
      table.inject("issue labeled after opening")
    } else {
      fresh = (yield* world.call(() => control.createIssue({ repo: REPOSITORY, title, labels: [label] }))).number
      table.inject("issue opened with the label")
    }
    matching.set(fresh, [options.loop])
    return fresh
  })
