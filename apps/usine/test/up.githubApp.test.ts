import { execFile, execFileSync } from "node:child_process"
import { generateKeyPairSync } from "node:crypto"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { daemonConfig, loop, REPOSITORY } from "./support/daemonConfig"
import { startUsine } from "./support/UsineProcess"
import { upIn, upWorld } from "./support/upWorld"

/** Installation tokens live this long on the emulator: the Run below lasts several of them. */
const TOKEN_LIFETIME_SECONDS = 4
const AGENT_DELAY_SECONDS = 10

const execFileAsync = promisify(execFile)

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

      const api = <A>(route: string) =>
        Effect.promise(() => fetch(`${sim.url}${route}`, { headers: { authorization: `token ${world.token}` } }).then((r) => r.json() as Promise<A>))
      const pull = yield* api<{ user: { login: string }; head: { ref: string } }>(`/repos/${REPOSITORY}/pulls/${opened[1]}`)
      assert.strictEqual(pull.user.login, "usine-app[bot]")
      // The pushed commit is the bot's too, credited the way GitHub credits an App: <id>+<slug>[bot]@users.noreply.github.com.
      const bot = yield* api<{ id: number }>(`/users/${encodeURIComponent("usine-app[bot]")}`)
      const origin = new URL(`${sim.url}/${REPOSITORY}.git`)
      origin.username = "x-access-token"
      origin.password = world.token
      // Not execFileSync: the emulator serving the clone runs in this process.
      yield* Effect.promise(() => execFileAsync("git", ["clone", "--quiet", "--bare", origin.href, join(dir, "pushed.git")], { env: { ...process.env, GIT_TERMINAL_PROMPT: "0" } }))
      const author = execFileSync("git", ["--git-dir", join(dir, "pushed.git"), "log", "-1", "--format=%an <%ae> / %cn", pull.head.ref], { encoding: "utf8" }).trim()
      assert.strictEqual(author, `usine-app[bot] <${bot.id}+usine-app[bot]@users.noreply.github.com> / usine-app[bot]`)
      assert.notInclude(usine.stdout() + usine.stderr(), "BEGIN PRIVATE KEY")
      assert.notMatch(usine.stdout() + usine.stderr(), /ghs_sim[0-9a-f]{8}/)
    }), { timeout: 180_000 })

  it.scopedLive("doctor checks the App, its installation token and the probes; check and up refuse a token beside it, a readable key, a wrong key", () =>
    Effect.gen(function* () {
      const world = yield* upWorld
      const { sim, dir } = world
      const { publicKey, privateKey } = appKeys()
      const app = yield* Effect.promise(() => sim.control.createApp({ slug: "usine-app", publicKey, account: "acme", repositories: [REPOSITORY] }))
      const key = join(dir, "app.pem")
      writeFileSync(key, privateKey, { mode: 0o600 })
      const yaml = daemonConfig({ apiUrl: sim.url, token: world.token, boardPort: world.port, workspaces: join(dir, "workspaces"), loops: [loop("fix", "ready-for-agent")] })
      const asApp = yaml.replace(`  token: ${world.token}\n`, `  app: {id: ${app.appId}, private_key_file: app.pem, installation_id: ${app.installationId}}\n`)
      const run = (text: string, args: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          writeFileSync(join(dir, "usine.yaml"), text)
          const usine = yield* startUsine(dir, [...args])
          const code = yield* usine.exit("90 seconds")
          return { code, out: usine.stdout() + usine.stderr() }
        })

      const doctor = yield* run(asApp, ["doctor"])
      assert.strictEqual(doctor.code, 0, doctor.out)
      for (const expected of [
        `✓ token: GitHub App ${app.appId}, its private key readable by its owner only`,
        `accepts the App ${app.appId}'s installation token (acting as usine-app[bot])`,
        "✓ clock: within",
        "✓ acme/widgets: the token can read it and write issues, contents and pull requests (probed, nothing changed)"
      ])
        assert.include(doctor.out, expected)
      assert.notInclude(doctor.out, "PRIVATE KEY")

      const both = yield* run(asApp.replace("github:\n", `github:\n  token: ${world.token}\n`), ["check"])
      assert.notStrictEqual(both.code, 0)
      assert.include(both.out, "github.app and github.token are both set")

      chmodSync(key, 0o644)
      const readable = yield* run(asApp, ["up"])
      assert.notStrictEqual(readable.code, 0)
      assert.match(readable.out, /github\.app\.private_key_file \S+app\.pem has mode 644; make it readable by its owner only/)

      writeFileSync(key, appKeys().privateKey, { mode: 0o600 })
      chmodSync(key, 0o600)
      const wrong = yield* run(asApp, ["up"])
      assert.notStrictEqual(wrong.code, 0)
      assert.include(wrong.out, `GitHub App ${app.appId} could not authenticate`)
    }), { timeout: 240_000 })
})
