import { createHmac } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { upIn, upWorld } from "./support/upWorld"

const SECRET = "webhook-secret-for-the-e2e-test"

const deliver = (url: string, body: string, headers: Record<string, string>) =>
  Effect.promise(() =>
    fetch(`${url}webhooks/github`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": "d-1", ...headers },
      body
    }).then(async (response) => ({ status: response.status, body: await response.text() }))
  )

const signed = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`

const waitingNumbers = (url: string) =>
  Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => view.waiting.map((w) => w.run.number))

describe("usine up: GitHub webhooks as hints", () => {
  it.scopedLive("with poll_interval 10m a signed delivery turns a labelled issue into a Run in under 2 s; unsigned and wrongly signed ones get 401", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim } = world
      const create = (title: string, labels: ReadonlyArray<string> = []) =>
        Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body: "", labels: [...labels] }))
      const first = yield* create("seen by the first poll", ["ready-for-agent"])
      const later = yield* create("labelled after the first poll")
      const { usine, url } = yield* upIn(world, {
        loops: [loop("gated", "ready-for-agent", "required")],
        edit: (yaml) =>
          yaml.replace("poll_interval: 1s", "poll_interval: 10m").replace("  api_url:", `  webhook_secret: \${USINE_WEBHOOK_SECRET}\n  api_url:`),
        env: { USINE_WEBHOOK_SECRET: SECRET }
      })
      yield* eventually("the first poll opened a Run", Effect.map(waitingNumbers(url), (n) => Option.liftPredicate(n, (ns) => ns.includes(first.number))))

      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: later.number, labels: ["ready-for-agent"] }))
      const body = JSON.stringify({ action: "labeled", issue: { number: later.number }, label: { name: "ready-for-agent" }, repository: { full_name: REPOSITORY } })
      const unsigned = yield* deliver(url, body, {})
      assert.strictEqual(unsigned.status, 401)
      const wrong = yield* deliver(url, body, { "x-hub-signature-256": signed("not-the-secret", body) })
      assert.strictEqual(wrong.status, 401)
      const tampered = yield* deliver(url, body.replace("labeled", "opened"), { "x-hub-signature-256": signed(SECRET, body) })
      assert.strictEqual(tampered.status, 401)
      const withBoardToken = yield* deliver(url, body, { authorization: "Bearer board-token-for-tests-0123456789abcdef" })
      assert.strictEqual(withBoardToken.status, 401, "the Board token is no signature")
      yield* Effect.sleep("3 seconds")
      assert.notInclude(yield* waitingNumbers(url), later.number, "no refused delivery opened a Run")

      const sent = Date.now()
      const accepted = yield* deliver(url, body, { "x-hub-signature-256": signed(SECRET, body) })
      assert.strictEqual(accepted.status, 202, accepted.body)
      yield* eventually(
        "the signed delivery opened a Run",
        Effect.map(waitingNumbers(url), (ns) => Option.liftPredicate(ns, (n) => n.includes(later.number))),
        5
      )
      const took = Date.now() - sent
      assert.isBelow(took, 2_000, `label to Run in ${took} ms`)

      const again = yield* deliver(url, body, { "x-hub-signature-256": signed(SECRET, body) })
      assert.strictEqual(again.status, 202)
      yield* Effect.sleep("2 seconds")
      const numbers = yield* waitingNumbers(url)
      assert.strictEqual(numbers.filter((n) => n === later.number).length, 1, "a repeated delivery opens nothing more")
      assert.match(usine.stdout(), /webhook delivery d-1 refused: missing X-Hub-Signature-256/)
      assert.notInclude(usine.stdout(), SECRET, "the secret never reaches a log")
    }), 120_000)
})
