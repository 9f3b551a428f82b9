import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeRedactor } from "@usine/core/text/Redactor"
import { LoggingLayer } from "../src/layers/LoggingLayer"
import { scopedDir } from "./support/scopedSim"

const SECRET = "ghp_sim0123456789abcdef0123456789abcdef"

describe("LoggingLayer", () => {
  it.scoped("writes redacted logfmt with run, loop and item to the file", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      yield* Effect.logInfo(`cloning with ${SECRET}`).pipe(
        Effect.annotateLogs({ runId: "a".repeat(32), loop: "start-dev", item: '["github","acme/widgets",7]' }),
        Effect.provide(LoggingLayer({ json: false, stdout: "warnings", folder: dir, redact: makeRedactor([SECRET]).redact }))
      )
      const line = readFileSync(join(dir, "usine.log"), "utf8").trim()
      assert.match(line, /^ts=\S+ level=INFO msg="cloning with \[REDACTED:secret\]" /)
      assert.include(line, ` run=${"a".repeat(32)} `)
      assert.include(line, " loop=start-dev")
      assert.include(line, " item=acme/widgets#7")
      assert.notInclude(line, SECRET)
    })
  )

  it.scoped("writes one JSON object per line with --json-logs, the cause included", () =>
    Effect.gen(function* () {
      const dir = yield* scopedDir
      yield* Effect.logError("poll failed", new Error(`boom ${SECRET}`)).pipe(
        Effect.annotateLogs("loop", "review"),
        Effect.provide(LoggingLayer({ json: true, stdout: "warnings", folder: dir, redact: makeRedactor([SECRET]).redact }))
      )
      const record = JSON.parse(readFileSync(join(dir, "usine.log"), "utf8")) as Record<string, string>
      assert.strictEqual(record["level"], "ERROR")
      assert.strictEqual(record["msg"], "poll failed boom [REDACTED:secret]")
      assert.strictEqual(record["loop"], "review")
    })
  )
})
