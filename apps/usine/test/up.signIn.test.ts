import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { NeedsYouView } from "@usine/board/BoardViews/needsYouView"
import type { RunView } from "@usine/board/BoardViews/runView"
import { BOARD_TOKEN, loop, REPOSITORY } from "./support/daemonConfig"
import { board, eventually } from "./support/http"
import { act, browser, signIn, toCallback } from "./support/signInBrowser"
import { upIn, upWorld } from "./support/upWorld"

describe("usine up: sign in with GitHub", () => {
  it.scopedLive("a writer approves and is named; a triager's approve is 403 naming write; board.allow (logins and org/team) and the state and PKCE checks refuse the rest", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { dir, port, sim } = world
      const origin = `http://127.0.0.1:${port}`
      yield* Effect.promise(async () => {
        await sim.control.createUser({ login: "dana", permission: "none", repositories: { [REPOSITORY]: "write" } })
        await sim.control.createUser({ login: "tom", permission: "none", repositories: { [REPOSITORY]: "triage" } })
        await sim.control.createUser({ login: "eve", permission: "none", repositories: { [REPOSITORY]: "write" } })
        // tom is let in by his team; eve is in another team only.
        await sim.control.setTeamMembers({ org: "acme", team: "reviewers", members: ["tom"] })
        await sim.control.setTeamMembers({ org: "acme", team: "outsiders", members: ["eve"] })
      })
      const app = yield* Effect.promise(() => sim.control.createOAuthApp({ callbackUrl: `${origin}/auth/github/callback`, name: "usine" }))
      const secretFile = join(dir, "oauth-secret")
      writeFileSync(secretFile, `${app.clientSecret}\n`)
      chmodSync(secretFile, 0o600)
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "slugify", body: "fix it" }))
      const { url } = yield* upIn(world, {
        loops: [loop("gated", "ready-for-agent", "required")],
        edit: (yaml) =>
          yaml.replace(
            `  token: ${BOARD_TOKEN}`,
            `  token: ${BOARD_TOKEN}\n  host_name: ${origin}\n  auth:\n    github:\n      client_id: ${app.clientId}\n` +
              `      client_secret_file: ${JSON.stringify(secretFile)}\n  allow: [dana, acme/reviewers]`
          )
      })
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const waiting = yield* eventually(
        "a Run waits for approval",
        Effect.map(board<NeedsYouView>(url, "/api/needs-you"), (view) => Option.fromNullable(view.waiting[0])),
        90
      )
      const runId = waiting.run.id

      // Without a session the Board sends a browser to the sign-in page, which links to GitHub and offers no token form.
      const stranger = browser()
      const login = yield* stranger.send(`${url}login`)
      assert.include(login.text, `href="/auth/github"`)
      assert.notInclude(login.text, `name="token"`)
      assert.strictEqual((yield* stranger.send(`${url}api/runs/${runId}`, { headers: { accept: "application/json" } })).status, 401)

      // A callback this browser never began (no state cookie), or with another state than its own, is refused.
      const forger = browser()
      const stolen = yield* toCallback(browser(), url, "dana")
      assert.strictEqual((yield* forger.send(stolen)).status, 400, "a callback without this browser's state cookie")
      yield* forger.send(`${url}auth/github`)
      assert.strictEqual((yield* forger.send(stolen)).status, 400, "a callback whose state is not this browser's")
      // PKCE: an attacker's own code slipped into the victim's sign-in, under the victim's state, fails the exchange.
      const victim = browser()
      const victims = new URL(yield* toCallback(victim, url, "dana"))
      const attackers = new URL(yield* toCallback(browser(), url, "eve"))
      victims.searchParams.set("code", attackers.searchParams.get("code") ?? "")
      const injected = yield* victim.send(victims.toString())
      assert.strictEqual(injected.status, 401, injected.text)
      assert.isUndefined(victim.cookie(url, "usine_session"))

      // board.allow: eve has write on the repository but is neither listed nor in the listed team.
      const eve = browser()
      const refused = yield* signIn(eve, url, "eve")
      assert.strictEqual(refused.status, 403)
      assert.include(refused.text, "@eve is not in board.allow")
      assert.isUndefined(eve.cookie(url, "usine_session"))

      // tom (triage), let in as a member of acme/reviewers, may act on the Run but not approve it: 403 naming write; a triage action passes the role check.
      const tom = browser()
      assert.strictEqual((yield* signIn(tom, url, "tom")).status, 200)
      const tomApproves = yield* act(tom, url, `/runs/${runId}/approve`)
      assert.strictEqual(tomApproves.status, 403)
      assert.strictEqual(tomApproves.body["error"], "RoleTooLow")
      assert.strictEqual(tomApproves.body["needs"], "write")
      assert.include(String(tomApproves.body["message"]), "approve needs the write role on acme/widgets; @tom has triage")
      const tomResolves = yield* act(tom, url, `/runs/${runId}/resolve-failure`)
      assert.strictEqual(tomResolves.body["error"], "RunStateConflict", "past the role check, the engine refuses a Run that did not fail")

      // dana (write) approves; the transition names her, in the JSON and on the page.
      const dana = browser()
      const welcome = yield* signIn(dana, url, "dana")
      assert.strictEqual(welcome.status, 200)
      assert.include(welcome.text, "Signed in as @dana")
      const approved = yield* act(dana, url, `/runs/${runId}/approve`)
      assert.strictEqual(approved.status, 200, JSON.stringify(approved.body))
      assert.strictEqual(approved.body["approved"], true)
      const view = yield* board<RunView>(url, `/api/runs/${runId}`)
      const approval = view.timeline.find((entry) => entry.what === "Waiting → Queued")
      assert.strictEqual(approval?.actor, "operator")
      assert.strictEqual(approval?.by, "dana")
      assert.isUndefined(view.timeline.find((entry) => entry.what.startsWith("opened"))?.by, "the trigger's row names nobody")
      const page = yield* dana.send(`${url}runs/${runId}`)
      assert.match(page.text, /data-by="dana"/)
      assert.include(page.text, " by @dana")

      // The same callback twice: the state was taken by the first.
      const replayed = browser()
      const once = yield* toCallback(replayed, url, "dana")
      assert.strictEqual((yield* replayed.send(once)).status, 200)
      assert.strictEqual((yield* replayed.send(once)).status, 400)
    }), 240_000)
})
