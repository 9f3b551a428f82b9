import { execFile } from "node:child_process"
import { generateKeyPairSync, sign } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { GitHubSim } from "@usine/github-sim/GitHubSim"
import { call, failure, octokitFor } from "./octokitFor"

const keys = () => generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } })

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** An App JWT signed with `privateKey` (RS256 unless `alg` says otherwise). */
const jwt = (privateKey: string, claims: Record<string, unknown>, alg = "RS256") => {
  const data = `${b64({ alg, typ: "JWT" })}.${b64(claims)}`
  return `${data}.${sign("RSA-SHA256", Buffer.from(data), privateKey).toString("base64url")}`
}

const status = (url: string, init: RequestInit) => Effect.promise(() => fetch(url, init).then(async (r) => ({ status: r.status, body: (await r.json()) as any })))

const gitStatus = (cloneUrl: string, token: string) =>
  Effect.promise(() =>
    fetch(`${cloneUrl}/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` }
    }).then((r) => r.status)
  )

describe("GitHub Apps", () => {
  it.live("a JWT signed by the App's key, iss the App and exp within 10 min mints an installation token; anything else is 401", () =>
    Effect.gen(function* () {
      const { control, url } = yield* GitHubSim
      const { publicKey, privateKey } = keys()
      yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
      const app = yield* control.createApp({ slug: "usine-test", publicKey, account: "acme", repositories: ["acme/widgets"] })
      assert.strictEqual(app.botLogin, "usine-test[bot]")
      const now = Math.floor(Date.now() / 1000)
      const good = jwt(privateKey, { iss: String(app.appId), iat: now - 60, exp: now + 540 })

      const found = yield* status(`${url}/repos/acme/widgets/installation`, { headers: { authorization: `Bearer ${good}` } })
      assert.strictEqual(found.status, 200)
      assert.strictEqual(found.body.id, app.installationId)
      assert.strictEqual(found.body.app_id, app.appId)
      const elsewhere = yield* status(`${url}/repos/acme/other/installation`, { headers: { authorization: `Bearer ${good}` } })
      assert.strictEqual(elsewhere.status, 404)

      const mint = (token: string) =>
        status(`${url}/app/installations/${app.installationId}/access_tokens`, { method: "POST", headers: { authorization: `Bearer ${token}` } })
      const other = keys().privateKey
      const refused = {
        "another key": jwt(other, { iss: app.appId, iat: now, exp: now + 300 }),
        "another App": jwt(privateKey, { iss: app.appId + 1000, iat: now, exp: now + 300 }),
        "expired": jwt(privateKey, { iss: app.appId, iat: now - 700, exp: now - 100 }),
        "exp beyond 10 min": jwt(privateKey, { iss: app.appId, iat: now, exp: now + 660 }),
        "iat in the future": jwt(privateKey, { iss: app.appId, iat: now + 300, exp: now + 500 }),
        "HS256": jwt(privateKey, { iss: app.appId, iat: now, exp: now + 300 }, "HS256"),
        "a user token": "ghp_nope"
      }
      for (const [why, token] of Object.entries(refused)) {
        const answer = yield* mint(token)
        assert.strictEqual(answer.status, 401, why)
        assert.strictEqual(answer.body.message, "Bad credentials", why)
      }

      const minted = yield* mint(good)
      assert.strictEqual(minted.status, 201)
      assert.match(minted.body.token, /^ghs_/)
      const life = new Date(minted.body.expires_at).getTime() - Date.now()
      assert.isTrue(life > 3500_000 && life <= 3600_000, `GitHub's hour, got ${life} ms`)
      assert.strictEqual(minted.body.permissions.contents, "write")
    }).pipe(Effect.provide(GitHubSim.layer())))

  it.live("an installation token acts as <slug>[bot] over REST, GraphQL and git until it expires, then 401 Bad credentials", () =>
    Effect.gen(function* () {
      const { control, url, authenticatedCloneUrl } = yield* GitHubSim
      const { publicKey, privateKey } = keys()
      const repo = yield* control.createRepository({ owner: "acme", name: "widgets", files: { "README.md": "hello\n" } })
      const app = yield* control.createApp({ slug: "usine-test", publicKey, account: "acme", repositories: ["acme/widgets"] })
      yield* control.setInstallationTokenLifetime({ seconds: 60 })
      const now = Math.floor(Date.now() / 1000)
      const minted = yield* status(`${url}/app/installations/${app.installationId}/access_tokens`, {
        method: "POST",
        headers: { authorization: `Bearer ${jwt(privateKey, { iss: app.appId, iat: now - 30, exp: now + 300 })}` }
      })
      const token: string = minted.body.token
      const life = new Date(minted.body.expires_at).getTime() - Date.now()
      assert.isTrue(life > 58_000 && life <= 60_000, `60 s, got ${life} ms`)

      const octokit = octokitFor(url, token)
      const issue = yield* call(() => octokit.rest.issues.create({ owner: "acme", repo: "widgets", title: "by the App" }))
      assert.strictEqual(issue.data.user?.login, "usine-test[bot]")
      assert.strictEqual(issue.data.user?.type, "Bot")
      const viewer = yield* call(() => octokit.graphql<{ viewer: { login: string } }>("{ viewer { login } }"))
      assert.strictEqual(viewer.viewer.login, "usine-test[bot]")

      // A push with the token (the emulator shares this process: git runs asynchronously), then a pull request from it.
      const work = mkdtempSync(join(tmpdir(), "sim-app-"))
      const git = (...args: Array<string>) => Effect.promise(() => promisify(execFile)("git", args, { cwd: work }))
      yield* git("clone", "-q", authenticatedCloneUrl("acme/widgets", token), ".")
      yield* git("-c", "user.name=usine-test[bot]", "-c", "user.email=bot@example.com", "commit", "-q", "--allow-empty", "-m", "work")
      yield* git("push", "-q", "origin", "HEAD:refs/heads/agent/1")
      rmSync(work, { recursive: true, force: true })
      const pull = yield* call(() => octokit.rest.pulls.create({ owner: "acme", repo: "widgets", head: "agent/1", base: repo.defaultBranch, title: "from the App" }))
      assert.strictEqual(pull.data.user?.login, "usine-test[bot]")
      assert.strictEqual(yield* gitStatus(repo.cloneUrl, token), 200)

      yield* control.advanceTime({ ms: 61_000 })
      const rest = yield* failure(() => octokit.rest.repos.get({ owner: "acme", repo: "widgets" }))
      assert.strictEqual(rest.status, 401)
      assert.strictEqual(rest.response?.data.message, "Bad credentials")
      const graphql = yield* failure(() => octokit.graphql("{ viewer { login } }"))
      assert.strictEqual(graphql.status, 401)
      assert.strictEqual(yield* gitStatus(repo.cloneUrl, token), 401)
    }).pipe(Effect.provide(GitHubSim.layer())))
})
