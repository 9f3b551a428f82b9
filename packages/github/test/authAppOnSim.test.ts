import { generateKeyPairSync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { createAppAuth } from "@octokit/auth-app"
import { Octokit } from "@octokit/core"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"

const viewer = (url: string, token: string) =>
  Effect.promise(() =>
    fetch(`${url}/graphql`, { method: "POST", headers: { authorization: `bearer ${token}` }, body: JSON.stringify({ query: "{ viewer { login } }" }) }).then(
      async (r) => ({ status: r.status, body: (await r.json()) as any })
    )
  )

describe("@octokit/auth-app against the emulator", () => {
  it.live("mints installation tokens with its JWT, finds the installation, and hands out its cached token past expires_at unless asked to refresh", () =>
    Effect.gen(function* () {
      const { control, url } = yield* GitHubSim
      const { publicKey, privateKey } = generateKeyPairSync("rsa", {
        modulusLength: 2048,
        publicKeyEncoding: { type: "spki", format: "pem" },
        privateKeyEncoding: { type: "pkcs8", format: "pem" }
      })
      yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
      const app = yield* control.createApp({ slug: "usine-test", publicKey, account: "acme", repositories: ["acme/widgets"] })
      yield* control.setInstallationTokenLifetime({ seconds: 60 })
      const { request } = new Octokit({ baseUrl: url })
      const auth = createAppAuth({ appId: app.appId, privateKey, request })

      const appAuth = yield* Effect.promise(() => auth({ type: "app" }))
      const installation = yield* Effect.promise(() =>
        request("GET /repos/{owner}/{repo}/installation", { owner: "acme", repo: "widgets", headers: { authorization: `bearer ${appAuth.token}` } })
      )
      assert.strictEqual(installation.data.id, app.installationId)

      const first = yield* Effect.promise(() => auth({ type: "installation", installationId: app.installationId }))
      assert.match(first.token, /^ghs_/)
      const life = new Date(first.expiresAt).getTime() - Date.now()
      assert.isTrue(life > 58_000 && life <= 60_000, `60 s, got ${life} ms`)
      assert.strictEqual((yield* viewer(url, first.token)).body.data.viewer.login, "usine-test[bot]")

      yield* control.advanceTime({ ms: 61_000 })
      assert.strictEqual((yield* viewer(url, first.token)).status, 401)
      // auth-app's cache trusts its own 59-minute LRU, not expires_at: usine must ask for a refresh itself.
      const cached = yield* Effect.promise(() => auth({ type: "installation", installationId: app.installationId }))
      assert.strictEqual(cached.token, first.token)
      const refreshed = yield* Effect.promise(() => auth({ type: "installation", installationId: app.installationId, refresh: true }))
      assert.notStrictEqual(refreshed.token, first.token)
      assert.strictEqual((yield* viewer(url, refreshed.token)).body.data.viewer.login, "usine-test[bot]")
    }).pipe(Effect.provide(GitHubSim.layer())))
})
