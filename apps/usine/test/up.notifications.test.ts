import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { ledgerRows } from "./realAgents/LedgerRows"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { freePort } from "./support/freePort"
import { board, eventually } from "./support/http"
import { loopbackReceiver } from "./support/loopbackReceiver"
import { upIn, upWorld } from "./support/upWorld"
import { startUsine } from "./support/UsineProcess"

/** A Slack incoming-webhook stand-in on loopback: its secret URL, and every body it received as JSON. */
const slackReceiver = Effect.map(loopbackReceiver(), (r) => ({
  url: `${r.origin}/services/T0/B0/secret-hook-path`,
  get received(): ReadonlyArray<{ text: string }> {
    return r.received.map((d) => JSON.parse(d.body) as { text: string })
  }
}))

describe("usine up: notifications", () => {
  it.scopedLive("exactly one approval_needed and one pull_request_opened reach Slack across a SIGKILL and a restart; a dead endpoint shows on Needs you", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, sim } = world
      const slack = yield* slackReceiver
      const dead = yield* freePort
      const issue = yield* Effect.promise(() =>
        sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" })
      )
      const texts = (event: string) => slack.received.filter((m) => m.text.includes(event))
      const { usine: first, url } = yield* upIn(world, {
        extra: [
          "notify:",
          `  - {type: slack, url: "${slack.url}", events: [approval_needed, pull_request_opened]}`,
          `  - {type: webhook, url: "http://127.0.0.1:${dead}/hook", secret: webhook-signing-secret, events: [approval_needed]}`
        ].join("\n"),
        loops: [loop("gated", "ready-for-agent", "required")]
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0]))
      )
      yield* eventually("Slack heard of the approval", Effect.sync(() => Option.liftPredicate(slack.received, (r) => r.length === 1)), 20)
      assert.include(slack.received[0]?.text ?? "", "waits for your approval")
      assert.include(slack.received[0]?.text ?? "", `/runs/${waiting.run.id}`, "a link to the Run on the Board")
      // Delivery is at least once: a kill between Slack's 200 and the ledger's delivered mark sends it again. The
      // SIGKILL comes once the ledger has the mark, so the restart must not send it again.
      const ledger = ledgerRows(join(dir, "state", "ledger.db"))
      yield* eventually("the ledger marked it delivered", Effect.map(Effect.orElseSucceed(ledger.delivered("approval_needed"), () => 0), (n) => Option.liftPredicate(n, (x) => x === 1)), 20)
      yield* first.signal("SIGKILL")
      yield* first.exit()

      const second = yield* startUsine(dir, ["up"])
      yield* second.waitFor(/usine is up as/)
      yield* board(url, `/runs/${waiting.run.id}/approve`, "POST")
      yield* second.waitFor(/msg="attempt 1 succeeded/, "90 seconds")
      yield* eventually("Slack heard of the pull request", Effect.sync(() => Option.liftPredicate(slack.received, (r) => r.length >= 2)), 20)
      const failing = yield* eventually(
        "the dead endpoint is on Needs you",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) =>
          Option.fromNullable(view.pollFailures.find((f) => f.message.includes("notifications keep failing"))))
      )
      assert.match(failing.repository, /^notify webhook:/)
      yield* Effect.sleep("3 seconds")
      assert.strictEqual(texts("waits for your approval").length, 1, "approval_needed once, not again after the restart")
      assert.strictEqual(texts("opened a pull request").length, 1, "pull_request_opened once")
      assert.match(texts("opened a pull request")[0]?.text ?? "", /acme\/widgets\/pull\/\d+/)
      assert.strictEqual(slack.received.length, 2)
      const logs = first.stdout() + second.stdout()
      assert.notInclude(logs, "secret-hook-path", "the Slack URL is a secret")
      assert.notInclude(logs, "webhook-signing-secret")
    }), 240_000)
})
