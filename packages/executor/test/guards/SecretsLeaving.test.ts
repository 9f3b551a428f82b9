import { assert, describe, it } from "@effect/vitest"
import { makeRedactor } from "@usine/core/text/Redactor"
import { secretsLeaving } from "../../src/guards/SecretsLeaving"

const SECRET = "registered-Value-9d2c41ab"
const redactor = makeRedactor([SECRET])
const TOKEN = `ghs_${"Ab9".repeat(12)}`

describe("secretsLeaving", () => {
  it("finds a secret in a path, a link target and a leaving text, plain, encoded or token-shaped, and redacts the path", () => {
    const violations = secretsLeaving(
      [`docs/${SECRET}.md`, "docs/ok.md", Buffer.from(`x${SECRET}`).toString("base64url")],
      [{ kind: "symlink", path: "link", target: `../${TOKEN}` }, { kind: "gitlink", path: "sub" }],
      [{ what: "the commit message", text: `done, see %${Buffer.from(SECRET).toString("hex").match(/../g)!.join("%")}` }, { what: "the title", text: "plain" }],
      redactor
    )
    assert.deepStrictEqual(violations.map((v) => [v.path ?? "", v.detail]), [
      ["docs/[REDACTED:secret].md", "its path looks like a secret"],
      ["eH[REDACTED:encoded_secret]I", "its path looks like an encoded secret"],
      ["link", "its link target looks like a github token"],
      ["", "the commit message looks like an encoded secret"]
    ])
    assert.isFalse(JSON.stringify(violations).includes(SECRET))
  })

  it("passes ordinary paths and texts", () => {
    assert.deepStrictEqual(secretsLeaving(["src/a.ts", "README.md"], [{ kind: "symlink", path: "l", target: "src/a.ts" }], [{ what: "m", text: "Fix #3" }], redactor), [])
  })
})
