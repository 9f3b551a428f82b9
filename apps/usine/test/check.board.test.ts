import { Command, FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, Stream } from "effect"
import { USINE_BIN as bin } from "./support/usineBin"

const text = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** The real CLI on a usine.yaml with this `board:` section; its exit code and output. */
const usineOn = (board: string, command: "check" | "up") =>
  Effect.scoped(
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      const dir = yield* fs.makeTempDirectoryScoped()
      const file = (yield* Path.Path).join(dir, "usine.yaml")
      yield* fs.writeFileString(file, `repositories: [acme/widgets]\nagents:\n  codex: {harness: codex}\nloops: []\nboard:\n${board}\n`)
      const args = command === "check" ? ["check", file] : ["up", "--config", file]
      const child = yield* Command.start(
        Command.make("node", bin, ...args).pipe(Command.workingDirectory(dir), Command.env({ USINE_BOARD_TOKEN: "" }))
      )
      const [stdout, stderr, code] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], {
        concurrency: "unbounded"
      })
      return { stdout, stderr: stderr.replaceAll(file, "usine.yaml"), code: Number(code) }
    })
  )

const TOKEN_31 = "0123456789abcdef0123456789abcde"

describe.concurrent("usine check and up on the Board's token", () => {
  layer(NodeContext.layer)((it) => {
    it.scoped("refuse a 31-character board.token, naming the field and not the token", () =>
      Effect.gen(function* () {
        for (const command of ["check", "up"] as const) {
          const result = yield* usineOn(`  token: ${TOKEN_31}`, command)
          assert.strictEqual(result.code, 1, `${command}: ${result.stdout}${result.stderr}`)
          assert.strictEqual(
            result.stderr.trim(),
            "usine.yaml:6:10 board.token: expected a token of at least 32 characters, got 31 (try `openssl rand -hex 32`)",
            command
          )
          assert.notInclude(result.stdout + result.stderr, TOKEN_31)
        }
        const ok = yield* usineOn(`  token: ${TOKEN_31}f`, "check")
        assert.strictEqual(ok.code, 0, ok.stderr)
        assert.match(ok.stdout, /^ok: /)
      }), 90_000)

    it.scoped("refuse listen: 0.0.0.0 without a token, as check and as up", () =>
      Effect.gen(function* () {
        for (const board of ["  listen: 0.0.0.0:8787", "  listen: 0.0.0.0:8787\n  token: ${USINE_BOARD_TOKEN:-}"]) {
          for (const command of ["check", "up"] as const) {
            const result = yield* usineOn(board, command)
            assert.strictEqual(result.code, 1, `${command}: ${result.stdout}${result.stderr}`)
            assert.strictEqual(
              result.stderr.trim(),
              "usine.yaml:6:11 board.listen: the Board on 0.0.0.0 is reachable from other machines: set `board.token` " +
                "(at least 32 characters) or `board.auth`, or listen on 127.0.0.1",
              command
            )
          }
        }
      }), 90_000)
  })
})
