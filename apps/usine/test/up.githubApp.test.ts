import { generateKeyPairSync } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { loop, REPOSITORY } from "./support/daemonConfig"
import { upIn, upWorld } from "./support/upWorld"

/** Installation tokens live this long on the emulator: the Run below lasts several of them. */
const TOKEN_LIFETIME_SECONDS = 4
const AGENT_DELAY_SECONDS = 10

const appKeys = () =>
  generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } })

describe("usine up as a GitHub App", () => {
  it.scopedLive("runs as <slug>[bot] on installation tokens that expire mid-Run: refreshed before expiry, never refused, the PR is the App's", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim, dir } = world
      const { publicKey, privateKey } = appKeys()
      const app = yield* Effect.promise(() => sim.control.createApp({ slug: "usine-app", publicKey, account: "acme", repositories: [REPOSITORY] }))
      yield* Effect.promise(() => sim.control.setInstallationTokenLifetime({ seconds: TOKEN_LIFETIME_SECONDS }))
      writeFileSync(join(dir, "app.pem"), privateKey, { mode: 0o600 })
      const issue = yield* Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title: "slugify keeps punctuation", body: "Hello, World! gives hello,-world!" }))

      const { usine } = yield* upIn(world, {
        loops: [loop("fix", "ready-for-agent", "none")],
        agentDelay: AGENT_DELAY_SECONDS,
        // No installation_id: the daemon finds the installation on acme/widgets.
        edit: (yaml) => yaml.replace(`  token: ${world.token}\n`, `  app: {id: ${app.appId}, private_key_file: app.pem}\n`)
      })
      yield* usine.waitFor(/usine is up as usine-app\[bot\]/)
      yield* Effect.promise(() => sim.control.addLabels({ repo: REPOSITORY, number: issue.number, labels: ["ready-for-agent"] }))
      const started = Date.now()
      const opened = yield* usine.waitFor(/msg="attempt 1 succeeded: http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/(\d+)"/, "120 seconds")
      const runSeconds = (Date.now() - started) / 1000
      assert.isAbove(runSeconds, 2 * TOKEN_LIFETIME_SECONDS, "the Run outlived at least two installation tokens")

      const log = yield* Effect.promise(() => sim.control.requestLog())
      // git's first request of each command goes without credentials and is challenged with a 401: not a refusal.
      const challenge = (r: (typeof log)[number]) => r.login === null && /\.git\/info\/refs\?service=/.test(r.path)
      const refused = log.filter((r) => r.status === 401 && !challenge(r))
      assert.deepStrictEqual(refused.map((r) => `${r.method} ${r.path}`), [], "no request of the daemon went with an expired token")
      const gitAnswers = log.filter((r) => /\.git\//.test(r.path) && !challenge(r))
      assert.isTrue(gitAnswers.length > 0 && gitAnswers.every((r) => r.status === 200 && r.login === "usine-app[bot]"), "git fetched and pushed as the bot")
      const counts = yield* Effect.promise(() => sim.control.installationTokenCounts())
      assert.strictEqual(counts.refusedExpired, 0, "no request carried an expired installation token")
      assert.isAtLeast(counts.minted, 3, `tokens minted over a ${runSeconds} s Run of ${TOKEN_LIFETIME_SECONDS} s tokens`)
      const botRequests = log.filter((r) => r.login === "usine-app[bot]")
      assert.isTrue(botRequests.some((r) => r.path.includes("git-receive-pack")), "git pushed as the App's bot")
      assert.isTrue(botRequests.some((r) => r.path === "/graphql"), "GraphQL as the App's bot")
      assert.isTrue(log.every((r) => r.login !== "usine-bot"), "the user's token is not used")

      const pull = yield* Effect.promise(() =>
        fetch(`${sim.url}/repos/${REPOSITORY}/pulls/${opened[1]}`, { headers: { authorization: `token ${world.token}` } }).then((r) => r.json() as Promise<{ user: { login: string }; body: string }>)
      )
      assert.strictEqual(pull.user.login, "usine-app[bot]")
      assert.notInclude(usine.stdout() + usine.stderr(), "BEGIN PRIVATE KEY")
      assert.notMatch(usine.stdout() + usine.stderr(), /ghs_sim[0-9a-f]{8}/)
    }), { timeout: 180_000 })
})
