import { generateKeyPairSync } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { resolveCredential } from "@usine/github/resolveCredential"

const scopedDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "usine-app-key-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } })

const sources = (privateKeyFile: string) => ({
  token: undefined,
  tokenFile: undefined,
  env: { GITHUB_TOKEN: "ghp_not_used_when_an_app_is_configured" },
  useGhCli: false,
  app: { appId: 7, privateKeyFile, installationId: undefined },
  repositories: ["acme/widgets"],
  apiUrl: "http://127.0.0.1:9"
})

describe("resolveCredential", () => {
  it.scoped("reads github.app's key from an owner-only file and mints nothing yet; refuses a readable, empty or non-PEM file by its field", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      const key = join(dir, "app.pem")
      writeFileSync(key, privateKey, { mode: 0o600 })
      const resolved = yield* resolveCredential(sources(key))
      assert.strictEqual(resolved._tag, "App")
      if (resolved._tag === "App") assert.strictEqual(resolved.app.privateKey, privateKey.trim())

      chmodSync(key, 0o644)
      const open = yield* Effect.flip(resolveCredential(sources(key)))
      assert.match(open.message, /github\.app\.private_key_file .*app\.pem has mode 644; make it readable by its owner only/)

      const notPem = join(dir, "token.pem")
      writeFileSync(notPem, "ghp_this_is_a_token_not_a_key\n", { mode: 0o600 })
      assert.match((yield* Effect.flip(resolveCredential(sources(notPem)))).message, /github\.app\.private_key_file .* is not a PEM private key/)
      assert.match((yield* Effect.flip(resolveCredential(sources(join(dir, "absent.pem"))))).message, /github\.app\.private_key_file .* cannot be read/)

      const token = yield* resolveCredential({ ...sources(key), app: undefined })
      assert.strictEqual(token._tag, "Token")
    })
  )
})
