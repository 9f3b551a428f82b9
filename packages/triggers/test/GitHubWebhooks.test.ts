import { sign } from "@octokit/webhooks-methods"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { GitHubWebhooks, HINTED_EVENTS, targetsOf, type WebhookTarget } from "@usine/triggers/GitHubWebhooks"
import type { Hint } from "@usine/triggers/Hints"
import { LabelSync } from "@usine/triggers/LabelSync"
import { PollingTriggers } from "@usine/triggers/PollingTriggers"
import { TriggerConfig } from "@usine/triggers/TriggerConfig"

const repository = { full_name: "acme/widgets" }
const SECRET = Redacted.make("webhook-secret-for-tests")

describe("GitHubWebhooks", () => {
  it("names the Item of each hinted event, the catalog for label, and nothing for other events", () => {
    const item = (number: number): ReadonlyArray<WebhookTarget> => [{ _tag: "Item", repository: "acme/widgets", number }]
    assert.deepStrictEqual(targetsOf("issues", { action: "labeled", issue: { number: 3 }, repository }), item(3))
    assert.deepStrictEqual(targetsOf("issue_comment", { issue: { number: 4 }, repository }), item(4))
    for (const event of ["pull_request", "pull_request_review", "pull_request_review_comment"]) {
      assert.deepStrictEqual(targetsOf(event, { pull_request: { number: 5 }, repository }), item(5), event)
    }
    assert.deepStrictEqual(targetsOf("check_run", { check_run: { pull_requests: [{ number: 6 }] }, repository }), item(6))
    assert.deepStrictEqual(
      targetsOf("check_suite", { check_suite: { pull_requests: [{ number: 7 }, { number: 8 }, { number: 7 }] }, repository }),
      [...item(7), ...item(8)]
    )
    assert.deepStrictEqual(targetsOf("label", { action: "deleted", label: { name: "x" }, repository }), [
      { _tag: "LabelCatalog", repository: "acme/widgets" }
    ])
    assert.strictEqual(HINTED_EVENTS.size, 8)
    assert.deepStrictEqual(targetsOf("ping", { zen: "hi", repository }), [])
    assert.deepStrictEqual(targetsOf("push", { repository }), [])
    assert.deepStrictEqual(targetsOf("toString", { repository }), [], "no inherited property is an event")
    assert.deepStrictEqual(targetsOf("issues", { issue: { number: 3 } }), [], "no repository, no target")
    assert.deepStrictEqual(targetsOf("issues", { issue: { number: -1 }, repository }), [])
    assert.deepStrictEqual(targetsOf("issues", { issue: { number: "3" }, repository }), [])
    assert.deepStrictEqual(targetsOf("issues", null), [])
  })

  const receiving = (hints: Array<Hint>, rechecked: Array<string>) =>
    GitHubWebhooks.DefaultWithoutDependencies.pipe(
      Layer.provide(Layer.mergeAll(
        Layer.succeed(PollingTriggers, { hint: (h: Hint) => Effect.sync(() => void hints.push(h)) } as unknown as PollingTriggers),
        Layer.succeed(LabelSync, { recheck: (r: string) => Effect.sync(() => void rechecked.push(r)) } as unknown as LabelSync),
        TriggerConfig.fixed({ repositories: ["acme/widgets"], loops: [], labels: [], pollInterval: Duration.minutes(10) })
      ))
    )

  it.effect("a delivery signed with the secret gives its Hints; a missing or wrong signature gives none", () => {
    const hints: Array<Hint> = []
    const rechecked: Array<string> = []
    return Effect.gen(function* () {
      const webhooks = yield* GitHubWebhooks
      const body = JSON.stringify({ action: "labeled", issue: { number: 3 }, repository })
      const delivery = (signature: string | undefined, event = "issues", text = body) =>
        webhooks.receive(SECRET, { event, delivery: "d-1", signature, body: text })
      const signature = yield* Effect.promise(() => sign(Redacted.value(SECRET), body))

      const missing = yield* Effect.flip(delivery(undefined))
      assert.strictEqual(missing.why, "missing")
      assert.strictEqual((yield* Effect.flip(delivery(""))).why, "missing")
      const other = yield* Effect.promise(() => sign("another-secret", body))
      assert.strictEqual((yield* Effect.flip(delivery(other))).why, "wrong")
      assert.strictEqual((yield* Effect.flip(delivery("sha256=00"))).why, "wrong")
      assert.strictEqual((yield* Effect.flip(delivery(signature, "issues", body.replace("3", "4")))).why, "wrong", "a changed body")
      assert.notInclude(missing.message + other, Redacted.value(SECRET))
      assert.deepStrictEqual(hints, [], "nothing unsigned is acted on")

      assert.strictEqual((yield* delivery(signature)).length, 1)
      assert.strictEqual((yield* delivery(signature)).length, 1, "a repeated delivery is one more read")
      assert.deepStrictEqual(hints, [{ repository: "acme/widgets", number: 3 }, { repository: "acme/widgets", number: 3 }])

      const foreign = JSON.stringify({ issue: { number: 9 }, repository: { full_name: "evil/other" } })
      const foreignSigned = yield* Effect.promise(() => sign(Redacted.value(SECRET), foreign))
      assert.deepStrictEqual(yield* delivery(foreignSigned, "issues", foreign), [], "an unregistered repository")
      const label = JSON.stringify({ action: "deleted", label: { name: "ready" }, repository })
      yield* delivery(yield* Effect.promise(() => sign(Redacted.value(SECRET), label)), "label", label)
      assert.deepStrictEqual(rechecked, ["acme/widgets"])
      assert.strictEqual(hints.length, 2)
    }).pipe(Effect.provide(receiving(hints, rechecked)))
  })
})
