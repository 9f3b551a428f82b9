import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as LocalTransport from "../src/LocalTransport"
import { gitAskPass } from "../src/Workspace/gitAskPass"
import { scopedTempDir } from "@usine/testkit/scopedTempDir"

/** What the askpass program prints for a prompt, and its exit status. */
const ask = (program: string, prompt: string) => {
  try {
    return { out: execFileSync(program, [prompt], { encoding: "utf8" }), code: 0 }
  } catch (error) {
    return { out: "", code: (error as { status: number }).status }
  }
}

describe("gitAskPass (ADR 0053)", () => {
  it.scoped("answers git's two prompts for the GitHub origin only", () =>
    Effect.gen(function* () {
      const root = yield* scopedTempDir()
      const token = "ghs_lent-token-value"
      const env = yield* gitAskPass(LocalTransport.make(), root, Redacted.make(token), "https://github.example:8443/acme/app.git")
      const program = env["GIT_ASKPASS"] ?? ""
      assert.deepStrictEqual(ask(program, "Username for 'https://github.example:8443': "), { out: "x-access-token\n", code: 0 })
      assert.deepStrictEqual(ask(program, "Password for 'https://x-access-token@github.example:8443': "), { out: `${token}\n`, code: 0 })
      // A redirect, an insteadOf or a proxy that sends git elsewhere gets nothing.
      for (const prompt of [
        "Password for 'http://x-access-token@github.example:8443': ",
        "Password for 'https://x-access-token@127.0.0.1:9999': ",
        "Password for 'https://x-access-token@github.example': ",
        "Username for 'https://evil.example': ",
        "Password for 'https://x-access-token@github.example:8443.evil.example': ",
        "Password: "
      ]) {
        assert.deepStrictEqual(ask(program, prompt), { out: "", code: 1 }, prompt)
      }
    }))
})
