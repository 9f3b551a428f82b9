import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import { initConfig, repositoryOfRemote } from "../src/init/initConfig"
import { scopedDir } from "./support/scopedSim"
import { startUsine } from "./support/UsineProcess"

describe("usine init", () => {
  it.scopedLive("writes a valid, commented usine.yaml for the origin remote, and never overwrites one", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      execFileSync("git", ["init", "-q", dir])
      execFileSync("git", ["-C", dir, "remote", "add", "origin", "git@github.com:acme/widgets.git"])
      const first = yield* startUsine(dir, ["init"])
      assert.strictEqual(yield* first.exit(), 0, first.stderr())
      assert.include(first.stdout(), "wrote usine.yaml for acme/widgets")
      const text = readFileSync(join(dir, "usine.yaml"), "utf8")
      const config = yield* parseConfig(text, { env: {}, file: "usine.yaml" })
      assert.deepStrictEqual(config.repositories, ["acme/widgets"])
      assert.strictEqual(config.github.apiUrl, "https://api.github.com")
      assert.deepStrictEqual(config.loops.map((l) => [l.name, l.approval]), [["start-dev", "required"]])

      const second = yield* startUsine(dir, ["init"])
      assert.strictEqual(yield* second.exit(), 1)
      assert.strictEqual(second.stderr().trim(), "usine init: usine.yaml already exists; remove it or choose another --path")
      assert.strictEqual(readFileSync(join(dir, "usine.yaml"), "utf8"), text)
    }), 120_000)

  it("reads owner/name and the host from every shape of remote URL", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["git@github.com:acme/widgets.git", "github.com", "acme/widgets"],
      ["https://github.com/acme/widgets", "github.com", "acme/widgets"],
      ["https://github.com/acme/widgets.git/", "github.com", "acme/widgets"],
      ["ssh://git@github.example.com:2222/acme/wid.gets.git", "github.example.com", "acme/wid.gets"],
      ["https://x-access-token:abc@github.com/acme/widgets.git", "github.com", "acme/widgets"]
    ]
    for (const [url, host, repository] of cases) assert.deepStrictEqual(repositoryOfRemote(url), { host, repository }, url)
    assert.isUndefined(repositoryOfRemote("/srv/git/widgets.git"))
  })

  it.effect("points a GitHub Enterprise remote at its /api/v3", () =>
    Effect.gen(function* () {
      const config = yield* parseConfig(initConfig({ host: "github.example.com", repository: "acme/widgets" }), { env: {} })
      assert.strictEqual(config.github.apiUrl, "https://github.example.com/api/v3")
    })
  )
})
