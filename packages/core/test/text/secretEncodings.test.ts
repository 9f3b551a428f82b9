import { assert, describe, it } from "@effect/vitest"
import { makeRedactor } from "../../src/text/Redactor"
import { secretEncodings } from "../../src/text/secretEncodings"

const SECRET = "s3cr3t-value?with/odd+bytes~é"

/** Some text of `before` bytes, the secret, and `after` bytes, in one of the encodings. */
const embedded = (before: number, after: number, encode: (b: Buffer) => string) =>
  encode(Buffer.concat([Buffer.from("x".repeat(before)), Buffer.from(SECRET), Buffer.from("y".repeat(after))]))

const base64Url = (b: Buffer) => b.toString("base64url")

describe("secretEncodings", () => {
  const encodings = secretEncodings(SECRET)

  it("finds the secret in base64, standard and URL-safe, whatever bytes surround it (each alignment)", () => {
    for (const before of [0, 1, 2, 3, 4, 5]) {
      for (const after of [0, 1, 2]) {
        for (const encode of [(b: Buffer) => b.toString("base64"), base64Url]) {
          const text = embedded(before, after, encode)
          assert.isTrue(encodings.some((e) => text.includes(e)), `${before} bytes before, ${after} after: ${text}`)
        }
      }
    }
  })

  it("finds it in hex of either case and in URL-encoding", () => {
    const hex = Buffer.from(`abc${SECRET}def`).toString("hex")
    for (const text of [hex, hex.toUpperCase(), `q=${encodeURIComponent(SECRET)}&x=1`]) {
      assert.isTrue(encodings.some((e) => text.includes(e)), text)
    }
    const everyByte = Array.from(Buffer.from(SECRET), (b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("")
    assert.isTrue(encodings.some((e) => everyByte.includes(e)))
  })

  it("leaves out the value itself and encodings shorter than the minimum", () => {
    assert.isFalse(secretEncodings("plainvalue").includes("plainvalue"))
    assert.isTrue(secretEncodings("abcdefgh", 100).length === 0)
    for (const e of secretEncodings("abcdefgh")) assert.isAtLeast(e.length, 8)
  })

  it("does not match base64 or hex of other text", () => {
    const other = Buffer.from("an ordinary line of a README, nothing secret in it at all")
    for (const text of [other.toString("base64"), other.toString("hex"), base64Url(other)]) {
      assert.isFalse(encodings.some((e) => text.includes(e)), text)
    }
  })
})

describe("Redactor with encodings", () => {
  const redactor = makeRedactor([SECRET])

  it("the push scan finds a registered value's base64 and hex as an encoded secret", () => {
    for (const text of [embedded(1, 0, (b) => b.toString("base64")), embedded(2, 1, (b) => b.toString("hex"))]) {
      assert.deepStrictEqual(redactor.scan(text).map((f) => f.kind), ["encoded_secret"], text)
    }
    assert.deepStrictEqual(redactor.scan(`plain ${SECRET}`).map((f) => f.kind), ["secret"])
  })

  it("redacts the encodings too", () => {
    const text = `b64 ${Buffer.from(SECRET).toString("base64")} end`
    assert.notInclude(redactor.redact(text), Buffer.from(SECRET).toString("base64").slice(2, 20))
  })
})
