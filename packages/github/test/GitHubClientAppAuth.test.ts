import { generateKeyPairSync } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { appInstallationMint } from "@usine/github/AppInstallationMint"
import { GitHubClient } from "@usine/github/GitHubClient"
import { appTokenSupply } from "@usine/github/GitHubCredential"
import { GitHubSim } from "@usine/github-sim/GitHubSim"

const pair = () =>
  generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } })

const clientOf = (options: Parameters<typeof GitHubClient.Default>[0]) => Effect.provide(GitHubClient, GitHubClient.Default(options))

const viewer = `query { viewer { login } }`

/** The emulator with acme/widgets and an App installed on it, its tokens living 2 s. */
const appWorld = Effect.gen(function* () {
  const { control, url } = yield* GitHubSim
  const { publicKey, privateKey } = pair()
  yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
  const app = yield* control.createApp({ slug: "usine-test", publicKey, account: "acme", repositories: ["acme/widgets"] })
  yield* control.setInstallationTokenLifetime({ seconds: 2 })
  return { control, url, credentials: { appId: app.appId, privateKey, repositories: ["acme/widgets"], baseUrl: url } }
})

describe("GitHubClient under GitHub App auth", () => {
  it.live("asks the supply at each request: REST and GraphQL go as <slug>[bot] across token expiries, with one mint per refresh", () =>
    Effect.gen(function* () {
      const { control, url, credentials } = yield* appWorld
      const supply = yield* appTokenSupply(credentials)
      const client = yield* clientOf({ token: supply, apiUrl: url, retries: 0 })
      for (let round = 0; round < 3; round++) {
        const repo = yield* client.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" })
        assert.strictEqual(repo.data.full_name, "acme/widgets")
        const who = yield* client.graphql<{ viewer: { login: string } }>(viewer, {})
        assert.strictEqual(who.viewer.login, "usine-test[bot]")
        yield* Effect.sleep("1100 millis")
      }
      const counts = yield* control.installationTokenCounts()
      assert.strictEqual(counts.refusedExpired, 0)
      // 2 s tokens refreshed at half their life, used over about 3.3 s: reused within a second, minted again after.
      assert.isTrue(counts.minted >= 2 && counts.minted <= 4, `minted ${counts.minted}`)
    }).pipe(Effect.provide(GitHubSim.layer())), 20_000)

  it.live("a token kept past its expiry is refused with 401: what the refresh prevents", () =>
    Effect.gen(function* () {
      const { control, url, credentials } = yield* appWorld
      const once = yield* appInstallationMint(credentials)
      const client = yield* clientOf({ token: Redacted.make(once.token), apiUrl: url, retries: 0 })
      yield* client.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" })
      yield* Effect.sleep("2100 millis")
      const refused = yield* Effect.flip(client.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" }))
      assert.strictEqual(refused._tag, "GitHubUnauthorized")
      assert.strictEqual((yield* control.installationTokenCounts()).refusedExpired, 1)
      assert.strictEqual(makeRedactor().redact(`pushed with ${once.token}`).includes(once.token), false, "a minted token is redacted by shape")
    }).pipe(Effect.provide(GitHubSim.layer())), 20_000)

  it.live("a failed mint is the request's failure, naming the App", () =>
    Effect.gen(function* () {
      const { url, credentials } = yield* appWorld
      const supply = yield* appTokenSupply({ ...credentials, privateKey: pair().privateKey })
      const client = yield* clientOf({ token: supply, apiUrl: url, retries: 0 })
      const failed = yield* Effect.flip(client.request("GET /repos/{owner}/{repo}", { owner: "acme", repo: "widgets" }))
      assert.strictEqual(failed._tag, "GitHubUnreachable")
      assert.match(failed.message, new RegExp(`GitHub App ${credentials.appId} could not authenticate`))
    }).pipe(Effect.provide(GitHubSim.layer())), 20_000)
})
