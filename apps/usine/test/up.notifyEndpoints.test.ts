import { createHmac, timingSafeEqual } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { CLAUDE_AGENT_FILE, claudeAgentScript } from "./browser/support/showcaseConfig"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { loopbackReceiver, type ReceivedRequest } from "./support/loopbackReceiver"
import { upIn, upWorld } from "./support/upWorld"

type Delivery = ReceivedRequest

const SECRET = "webhook-signing-secret-for-tests"

/** What a receiver of usine's webhooks does: HMAC-SHA256 of the raw body with the shared secret, compared in constant time. */
const signedBy = (secret: string, delivery: Delivery) => {
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(delivery.body).digest("hex")}`)
  const given = Buffer.from(String(delivery.headers["x-usine-signature-256"] ?? ""))
  return expected.length === given.length && timingSafeEqual(expected, given)
}

const BROKEN_LOOP = `
  - name: broken
    on: issues
    if: '"broken" in item.labels'
    prompt: "Fix issue #{{ item.number }} of {{ repository }}: {{ item.title }}"
    agent: demo
    approval: none`

describe("usine up: notification endpoints and events", () => {
  it.scopedLive("a signed webhook gets approval_needed and failed as JSON its receiver can verify; ntfy gets failed and a rejected usine.yaml as plain text with a link", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim } = world
      const hooks = yield* loopbackReceiver()
      const gated = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))
      // The demo agent knows only the demo's issues: it gives up on this one, and the Run fails.
      const doomed = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "Rename the project", body: "" }))
      const { url, usine } = yield* upIn(world, {
        extra: [
          "  - {name: broken, color: d93f0b}",
          "notify:",
          `  - {type: webhook, url: "${hooks.origin}/hook", secret: ${SECRET}, events: [approval_needed, failed]}`,
          `  - {type: ntfy, url: "${hooks.origin}/usine-topic", events: [failed, config_rejected]}`
        ].join("\n"),
        loops: [loop("gated", "ready-for-agent", "required"), BROKEN_LOOP]
      })
      const at = (path: string) => hooks.received.filter((d) => d.path === path)
      const webhookOf = (event: string) => at("/hook").filter((d) => d.headers["x-usine-event"] === event)

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: gated.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually("a Run waits for approval", Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
        Option.fromNullable(view.waiting.find((w) => w.run.number === gated.number))))
      const [approval] = yield* eventually("the webhook heard of the approval", Effect.sync(() =>
        Option.liftPredicate(webhookOf("approval_needed"), (d) => d.length === 1)), 20)
      assert.isTrue(signedBy(SECRET, approval!), "signed with the endpoint's secret over the body as sent")
      assert.isFalse(signedBy("another-secret", approval!), "a receiver with another secret refuses it")
      assert.isFalse(signedBy(SECRET, { ...approval!, body: approval!.body.replace("gated", "other") }), "a changed body fails the check")
      assert.strictEqual(approval!.headers["content-type"], "application/json")
      const body = JSON.parse(approval!.body) as Record<string, unknown>
      assert.deepInclude(body, {
        event: "approval_needed",
        runId: waiting.run.id,
        loop: "gated",
        repository: REPOSITORY,
        number: gated.number,
        url: `${url}runs/${waiting.run.id}`
      })
      assert.strictEqual(body["text"], `gated · ${REPOSITORY}#${gated.number} waits for your approval`)
      assert.strictEqual(at("/usine-topic").length, 0, "ntfy did not ask for approval_needed")

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: doomed.number, labels: ["broken"] }))
      const [failed] = yield* eventually("the webhook heard of the failure", Effect.sync(() =>
        Option.liftPredicate(webhookOf("failed"), (d) => d.length === 1)), 90)
      assert.isTrue(signedBy(SECRET, failed!))
      const failure = JSON.parse(failed!.body) as { loop: string; number: number; text: string; url: string; runId: string }
      assert.deepStrictEqual([failure.loop, failure.number], ["broken", doomed.number])
      assert.match(failure.text, new RegExp(`^broken · ${REPOSITORY}#${doomed.number} failed`))
      const [ntfyFailed] = yield* eventually("ntfy heard of the failure", Effect.sync(() =>
        Option.liftPredicate(at("/usine-topic"), (d) => d.length === 1)), 20)
      assert.strictEqual(ntfyFailed!.body, failure.text, "ntfy's message is the plain text")
      assert.strictEqual(ntfyFailed!.headers["title"], "usine: failed")
      assert.strictEqual(ntfyFailed!.headers["click"], `${url}runs/${failure.runId}`, "tapping it opens the Run")
      assert.isUndefined(ntfyFailed!.headers["x-usine-signature-256"])

      // A broken edit of usine.yaml: refused, the configuration in force stays, and ntfy says so once.
      const file = join(dir, "usine.yaml")
      writeFileSync(file, readFileSync(file, "utf8").replace("poll_interval: 1s", "poll_interval: soon"))
      yield* usine.waitFor(/configuration change rejected/)
      const [rejected] = yield* eventually("ntfy heard of the rejected edit", Effect.sync(() =>
        Option.liftPredicate(at("/usine-topic").filter((d) => d.headers["title"] === "usine: config_rejected"), (d) => d.length === 1)), 20)
      assert.match(rejected!.body, /^usine\.yaml change rejected: usine\.yaml:\d+:\d+ poll_interval/)
      assert.strictEqual(rejected!.headers["click"], url.replace(/\/$/, ""), "a link to the Board")
      yield* Effect.sleep("3 seconds")
      assert.strictEqual(at("/usine-topic").length, 2, "each fact once: the failure and the rejected edit")
      assert.strictEqual(at("/hook").length, 2, "approval_needed and failed once each, config_rejected not asked for")
      assert.notInclude(usine.stdout(), SECRET, "the signing secret is never logged")
    }), 240_000)

  it.scopedLive("cap_reached and parked reach a webhook once each: a Loop past its daily tokens holds its next Run, an Item that made no progress parks its next Run", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim } = world
      const hooks = yield* loopbackReceiver()
      writeFileSync(join(dir, CLAUDE_AGENT_FILE), claudeAgentScript())
      const issue = (title: string, body: string) => Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body }))
      const label = (number: number, name: string) =>
        Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number, labels: [name] }))
      const spender = yield* issue("slugify keeps punctuation", "Hello, World! gives hello,-world!")
      const held = yield* issue("Add deslugify", "The inverse of slugify.")
      const stuck = yield* issue("Rename the project", "To widgets.")
      const { url } = yield* upIn(world, {
        extra: [
          "  - {name: capped, color: d93f0b}",
          "  - {name: stuck, color: d93f0b}",
          "notify:",
          `  - {type: webhook, url: "${hooks.origin}/hook", secret: ${SECRET}, events: [cap_reached, parked]}`
        ].join("\n"),
        loops: [
          // The Claude-shaped agent reports 17,780 tokens a Run: one Run spends the day's 1,000.
          `${loop("capped", "capped", "none").replace("agent: demo", "agent: claude-demo")}\n    budget: {daily_tokens: 1000}`,
          // The demo agent gives up on this issue: one Attempt without progress parks the Item.
          `${loop("stuck", "stuck", "none")}\n    max_no_progress: 1`
        ],
        edit: (yaml) => yaml.replace("agents:\n", `agents:\n  claude-demo:\n    harness: claude\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(join(dir, CLAUDE_AGENT_FILE))}]\n`)
      })
      type Runs = { page: { runs: ReadonlyArray<{ id: string; number?: number; state: string }> } }
      const runsOf = (number: number) => Effect.map(board<Runs>(url, "/api/runs"), (r) => r.page.runs.filter((x) => x.number === number))
      const eventOf = (event: string) => hooks.received.filter((d) => d.headers["x-usine-event"] === event)

      yield* label(spender.number, "capped")
      yield* label(stuck.number, "stuck")
      yield* eventually("the spending Run succeeds", Effect.map(runsOf(spender.number), (runs) =>
        Option.liftPredicate(runs, (r) => r.some((x) => x.state === "Succeeded"))), 90)
      yield* eventually("the stuck Run fails", Effect.map(runsOf(stuck.number), (runs) =>
        Option.liftPredicate(runs, (r) => r.some((x) => x.state === "Failed"))), 90)

      yield* label(held.number, "capped")
      // New content on the parked Item opens a Run, which the park holds.
      yield* Effect.promise(() => sim.control.updateIssue({ repo: REPOSITORY, number: stuck.number, body: "To widgets, please." }))
      const [capped] = yield* eventually("the webhook heard of the cap", Effect.sync(() =>
        Option.liftPredicate(eventOf("cap_reached"), (d) => d.length >= 1)), 60)
      const [parked] = yield* eventually("the webhook heard of the park", Effect.sync(() =>
        Option.liftPredicate(eventOf("parked"), (d) => d.length >= 1)), 60)
      for (const delivery of [capped!, parked!]) assert.isTrue(signedBy(SECRET, delivery))
      const cap = JSON.parse(capped!.body) as { loop: string; number: number; text: string; runId: string }
      assert.deepStrictEqual([cap.loop, cap.number], ["capped", held.number])
      assert.match(cap.text, new RegExp(`^capped · ${REPOSITORY}#${held.number} is held: a daily cap is reached`))
      const park = JSON.parse(parked!.body) as { loop: string; number: number; text: string; runId: string }
      assert.deepStrictEqual([park.loop, park.number], ["stuck", stuck.number])
      assert.match(park.text, new RegExp(`^stuck · ${REPOSITORY}#${stuck.number} is parked: no progress`))
      const heldRuns = yield* runsOf(held.number)
      assert.deepStrictEqual(heldRuns.map((r) => [r.id, r.state]), [[cap.runId, "Pending"]], "the held Run waits, it did not start")
      yield* Effect.sleep("3 seconds")
      assert.deepStrictEqual([eventOf("cap_reached").length, eventOf("parked").length], [1, 1], "each once")
    }), 240_000)
})
