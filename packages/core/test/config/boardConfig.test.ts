import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option, Redacted } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"

const withBoard = (board: string) => `repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops: []
board:
${board}
`
const TOKEN = "0123456789abcdef0123456789abcdef"

const problemsOf = (board: string, env: Record<string, string> = {}) =>
  parseConfig(withBoard(board), { env }).pipe(
    Effect.flip,
    Effect.map((error) => error.problems.map((problem) => `${problem.line}:${problem.column} ${problem.path}: ${problem.message}`))
  )

describe("board config", () => {
  it.effect("refuses a token under 32 characters, naming the field and never the token", () =>
    Effect.gen(function* () {
      const problems = yield* problemsOf(`  token: ${TOKEN.slice(1)}`)
      assert.deepStrictEqual(problems, [
        "6:10 board.token: expected a token of at least 32 characters, got 31 (try `openssl rand -hex 32`)"
      ])
      const config = yield* parseConfig(withBoard(`  token: ${TOKEN}`), { env: {} })
      assert.strictEqual(Option.map(config.board.token, Redacted.value).pipe(Option.getOrUndefined), TOKEN)
    }))

  it.effect("refuses listen off loopback without a token, an unset variable counting as none", () =>
    Effect.gen(function* () {
      const message = "board.listen: the Board on 0.0.0.0 is reachable from other machines: set `board.token` " +
        "(at least 32 characters) or `board.auth`, or listen on 127.0.0.1"
      assert.deepStrictEqual(yield* problemsOf("  listen: 0.0.0.0:8787"), [`6:11 ${message}`])
      assert.deepStrictEqual(yield* problemsOf("  listen: 0.0.0.0:8787\n  token: ${USINE_BOARD_TOKEN:-}"), [`6:11 ${message}`])
      const set = yield* parseConfig(withBoard("  listen: 0.0.0.0:8787\n  token: ${USINE_BOARD_TOKEN}"), { env: { USINE_BOARD_TOKEN: TOKEN } })
      assert.deepStrictEqual(set.board.listen, { host: "0.0.0.0", port: 8787 })
      const loopback = yield* parseConfig(withBoard("  listen: '[::1]:8787'"), { env: {} })
      assert.isTrue(Option.isNone(loopback.board.token))
    }))

  it.effect("session expiry defaults to 12 h idle and 7 days, and trust_proxy to false; host_name may be an https URL", () =>
    Effect.gen(function* () {
      const defaults = yield* parseConfig(withBoard(`  token: ${TOKEN}`), { env: {} })
      assert.isTrue(Duration.equals(defaults.board.sessionIdle, Duration.hours(12)))
      assert.isTrue(Duration.equals(defaults.board.sessionLifetime, Duration.days(7)))
      assert.isFalse(defaults.board.trustProxy)
      const set = yield* parseConfig(
        withBoard(`  token: ${TOKEN}\n  host_name: https://usine.example.com\n  session_idle: 30m\n  session_lifetime: 24h\n  trust_proxy: true`),
        { env: {} }
      )
      assert.strictEqual(set.board.hostName, "https://usine.example.com")
      assert.isTrue(Duration.equals(set.board.sessionIdle, Duration.minutes(30)))
      assert.isTrue(Duration.equals(set.board.sessionLifetime, Duration.hours(24)))
      assert.isTrue(set.board.trustProxy)
      const problems = yield* problemsOf(`  token: ${TOKEN}\n  host_name: https://usine.example.com/board`)
      assert.strictEqual(problems.length, 1)
      assert.match(problems[0] ?? "", /board\.host_name: expected a host name, or an http\(s\) URL with nothing after the host/)
    }))

  it.effect("board.auth.github: a secret inline or from a file, not both nor neither; host_name as a URL; allow only with auth", () =>
    Effect.gen(function* () {
      const auth = (secret: string, hostName = "  host_name: https://usine.example.com\n") =>
        `${hostName}  auth:\n    github:\n      client_id: Ov23abc\n${secret}`
      const config = yield* parseConfig(withBoard(`${auth("      client_secret: s3cret\n")}  allow: [Dana]`), { env: {} })
      assert.strictEqual(config.board.auth?.github.clientId, "Ov23abc")
      assert.deepStrictEqual(config.board.allow, ["Dana"])
      const teams = yield* parseConfig(withBoard(`${auth("      client_secret: s3cret\n")}  allow: [dana, acme/reviewers]`), { env: {} })
      assert.deepStrictEqual(teams.board.allow, ["dana", "acme/reviewers"], "an org/team entry lets the team's members in")
      const nonsense = yield* problemsOf(`${auth("      client_secret: s3cret\n")}  allow: [acme/re/viewers]`)
      assert.match(nonsense.join("\n"), /board\.allow\[0\]: expected a GitHub login \(like `octocat`\) or an organization's team \(like `acme\/reviewers`\)/)
      const both = yield* problemsOf(auth("      client_secret: s3cret\n      client_secret_file: secret.txt"))
      assert.match(both.join("\n"), /board\.auth\.github\.client_secret_file: client_secret and client_secret_file are both set/)
      const neither = yield* problemsOf(auth(""))
      assert.match(neither.join("\n"), /board\.auth\.github\.client_secret: set client_secret or client_secret_file/)
      const bare = yield* problemsOf(auth("      client_secret: s3cret", "  host_name: usine.example.com\n"))
      assert.match(bare.join("\n"), /board\.host_name: `board\.auth\.github` needs `board\.host_name` as the URL/)
      const allowAlone = yield* problemsOf("  allow: [dana]")
      assert.match(allowAlone.join("\n"), /board\.allow: `board\.allow` lists who may sign in with `board\.auth`/)
    }))
})
