import { generateKeyPairSync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { appInstallationMint } from "@usine/github/AppInstallationMint"
import { GitHubSim } from "@usine/github-sim/GitHubSim"

const pair = () =>
  generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } })

describe("appInstallationMint", () => {
  it.live("finds the installation from the repository, mints a new ghs_ token each call; a wrong key is AppAuthFailed", () =>
    Effect.gen(function* () {
      const { control, url } = yield* GitHubSim
      const { publicKey, privateKey } = pair()
      yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
      const app = yield* control.createApp({ slug: "usine-test", publicKey, account: "acme", repositories: ["acme/widgets"] })
      const mint = appInstallationMint({ appId: app.appId, privateKey, repositories: ["acme/widgets"], baseUrl: url })
      const first = yield* mint
      const second = yield* mint
      assert.match(first.token, /^ghs_/)
      assert.notStrictEqual(second.token, first.token)
      assert.isTrue(first.expiresAtMs > Date.now() + 3500_000)
      const wrong = yield* Effect.flip(appInstallationMint({ appId: app.appId, privateKey: pair().privateKey, installationId: app.installationId, repositories: [], baseUrl: url }))
      assert.strictEqual(wrong._tag, "AppAuthFailed")
      assert.match(wrong.reason, /Bad credentials/)
    }).pipe(Effect.provide(GitHubSim.layer())))
})
