import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { resolveToken } from "@usine/github/resolveToken"
import { tempDir } from "./support/TestLedger"

const none = { token: undefined, tokenFile: undefined, env: {}, useGhCli: false }

describe("resolveToken", () => {
  it.scoped("takes usine.yaml first, then its token file, then GITHUB_TOKEN or GH_TOKEN", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "token")
      writeFileSync(file, "from-file\n")
      chmodSync(file, 0o600)
      const env = { GITHUB_TOKEN: "from-env" }
      assert.strictEqual(Redacted.value(yield* resolveToken({ ...none, token: " from-yaml ", tokenFile: file, env })), "from-yaml")
      assert.strictEqual(Redacted.value(yield* resolveToken({ ...none, tokenFile: file, env })), "from-file")
      assert.strictEqual(Redacted.value(yield* resolveToken({ ...none, env })), "from-env")
      assert.strictEqual(Redacted.value(yield* resolveToken({ ...none, env: { GH_TOKEN: "gh" } })), "gh")
      assert.notInclude(String(yield* resolveToken({ ...none, env })), "from-env", "the token never prints")
    })
  )

  it.scoped("refuses a token file others can read, and says where a token could come from when none is found", () =>
    Effect.gen(function* () {
      const file = join(yield* tempDir, "token")
      writeFileSync(file, "secret\n")
      chmodSync(file, 0o644)
      const open = yield* Effect.flip(resolveToken({ ...none, tokenFile: file }))
      assert.include(open.message, "chmod 600")
      assert.include(open.message, "mode 644")
      assert.notInclude(open.message, "secret", "the refusal never prints the token")
      chmodSync(file, 0o640)
      assert.include((yield* Effect.flip(resolveToken({ ...none, tokenFile: file }))).message, "mode 640", "group-readable too")
      chmodSync(file, 0o400)
      assert.strictEqual(Redacted.value(yield* resolveToken({ ...none, tokenFile: file })), "secret", "owner-only is fine")
      const missing = yield* Effect.flip(resolveToken(none))
      assert.include(missing.message, "GITHUB_TOKEN")
    })
  )
})
