import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { childEnvironment } from "@usine/executor/childEnvironment"
import { daemonEnvironment, withholdSecrets } from "../src/daemon/DaemonEnvironment"

describe("the daemon's credentials leave process.env (ADR 0057)", () => {
  it("keeps them in memory for the config and the Agents, and no child inherits them", () => {
    const planted = {
      GITHUB_TOKEN: "ghp_0123456789abcdefghijABCDEFGHIJ012345",
      GH_TOKEN: "gh-token-value",
      OPENAI_API_KEY: "sk-provider-key",
      BOARD_PASSPHRASE_FROM_VAULT: "board-token-from-env-0123456789abcdef",
      USINE_BOARD: "board-token-from-env-0123456789abcdef",
      USINE_TEST_HARMLESS: "kept"
    }
    Object.assign(process.env, planted)
    const kept = withholdSecrets(["board-token-from-env-0123456789abcdef"])
    for (const name of ["GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "BOARD_PASSPHRASE_FROM_VAULT", "USINE_BOARD"]) {
      assert.isUndefined(process.env[name], name)
      assert.strictEqual(kept[name], planted[name as keyof typeof planted], `${name} stays readable to the daemon`)
    }
    assert.strictEqual(daemonEnvironment(), kept)
    assert.strictEqual(process.env["USINE_TEST_HARMLESS"], "kept")
    // A child spawned the ordinary way (inheriting process.env) sees none of them.
    const inherited = execFileSync("env", { encoding: "utf8" })
    for (const value of Object.values(planted).slice(0, 5)) assert.notInclude(inherited, value)
  })

  it("gives a child only where programs are, who it is, the locale and what the command names", () => {
    const env = childEnvironment(
      { GIT_DIR: "/x" },
      { PATH: "/usr/bin", HOME: "/home/u", LC_ALL: "C", AWS_SECRET_ACCESS_KEY: "k", NODE_OPTIONS: "--require evil.js" }
    )
    assert.deepStrictEqual(env, { PATH: "/usr/bin", HOME: "/home/u", LC_ALL: "C", GIT_DIR: "/x" })
  })
})
