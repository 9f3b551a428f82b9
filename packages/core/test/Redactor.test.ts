import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeRedactor, Redactor } from "../src/text/Redactor"

const GHP = `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`
const PAT = `github_pat_11ABCDEFG0123456789abc_${"x".repeat(59)}`
const ANTHROPIC = `sk-ant-api03-${"Zz9_-".repeat(18)}AA`
const OPENAI = `sk-proj-${"Qw3rTy".repeat(25)}`
const AWS = "AKIAIOSFODNN7EXAMPLE"
const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----"
const SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"

describe("Redactor", () => {
  const redactor = makeRedactor(["hunter2-but-longer"])

  it.each([
    [`token=${GHP};`, "token=[REDACTED:github_token];"],
    [`pat ${PAT} end`, "pat [REDACTED:github_token] end"],
    [`x-access-token:ghs_${"9".repeat(36)}@github.com`, "x-access-token:[REDACTED:github_token]@github.com"],
    [`ANTHROPIC_API_KEY=${ANTHROPIC}`, "ANTHROPIC_API_KEY=[REDACTED:anthropic_key]"],
    [`"${OPENAI}"`, '"[REDACTED:openai_key]"'],
    [`key ${AWS} used`, "key [REDACTED:aws_access_key] used"],
    [`before\n${KEY}\nafter`, "before\n[REDACTED:private_key]\nafter"],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.abc", "Authorization: Bearer [REDACTED:authorization]"],
    ["Authorization: token 0123456789abcdef0123", "Authorization: token [REDACTED:authorization]"],
    ["git push https://agent:s3cr3t-passw0rd@github.com/o/r.git", "git push https://[REDACTED:url_credentials]@github.com/o/r.git"],
    ["the configured hunter2-but-longer leaked", "the configured [REDACTED:secret] leaked"]
  ])("redacts %s", (input, expected) => {
    assert.strictEqual(redactor.redact(input), expected)
  })

  it("redacts a private key block cut off before its end", () => {
    const cut = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Yq\nb3Blbn"
    assert.strictEqual(redactor.redact(cut), "[REDACTED:private_key]")
  })

  it("leaves ordinary text alone: commit SHAs, short prefixes, words ending in sk-", () => {
    const text = `commit ${SHA} on task-abcdefghijklmnopqrstuvwxyz, ghp_short, http://localhost:8080/a@b, sk-`
    assert.strictEqual(redactor.redact(text), text)
    assert.strictEqual(makeRedactor(["abc"]).redact("abc abc"), "abc abc")
  })

  it("redacts transcript rows", () => {
    const row = makeRedactor().redactEntry({ kind: "tool_call", tool: "shell", text: `export GH_TOKEN=${GHP}`, at: 1 })
    assert.deepStrictEqual(row, { kind: "tool_call", tool: "shell", text: "export GH_TOKEN=[REDACTED:github_token]", at: 1 })
  })

  it("scans only for high-confidence secrets and registered values", () => {
    const text = `a ${GHP} b Bearer abcdefghijklmnopqrstuvwxyz c sk-abcdefghijklmnopqrstuvwx d hunter2-but-longer e ${AWS}`
    assert.deepStrictEqual(
      redactor.scan(text).map((f) => [f.kind, text.slice(f.index, f.index + f.length)]),
      [
        ["github_token", GHP],
        ["secret", "hunter2-but-longer"],
        ["aws_access_key", AWS]
      ]
    )
  })

  it("redacts a mebibyte of output quickly, adversarial shapes included", () => {
    const secrets = [GHP, ANTHROPIC, OPENAI, AWS, "hunter2-but-longer"]
    const filler = `${SHA} compiling src/module.ts … ok (12 ms) Bearer\n`
    let text = ""
    for (let i = 0; text.length < 1024 * 1024; i++) text += i % 200 === 0 ? `${secrets[i % secrets.length]}\n` : filler
    const adversarial = [" ".repeat(1 << 20), "sk-".repeat(350_000), "https://a:".repeat(100_000), "Bearer ".repeat(150_000)]
    const started = performance.now()
    const out = redactor.redact(text)
    for (const input of adversarial) redactor.redact(input)
    const elapsed = performance.now() - started
    for (const secret of secrets) assert.notInclude(out, secret)
    assert.include(out, SHA)
    assert.isBelow(elapsed, 1500)
  })

  it.effect("is a service the daemon provides with the secrets it knows", () =>
    Effect.gen(function* () {
      const service = yield* Redactor
      assert.strictEqual(service.redact("use 0123456789-token-value"), "use [REDACTED:secret]")
    }).pipe(Effect.provide(Redactor.layer(["0123456789-token-value"])))
  )
})
