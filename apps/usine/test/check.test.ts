import { Command, FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect, Stream } from "effect"
import { fileURLToPath } from "node:url"
import { USINE_BIN as bin } from "./support/usineBin"

const root = fileURLToPath(new URL("../../..", import.meta.url))

const text = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs the real CLI as a child process and collects its exit code and output. */
const usine = (cwd: string, ...args: Array<string>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const process = yield* Command.start(Command.make("node", bin, ...args).pipe(Command.workingDirectory(cwd)))
      const [stdout, stderr, code] = yield* Effect.all([text(process.stdout), text(process.stderr), process.exitCode], {
        concurrency: "unbounded"
      })
      return { stdout, stderr, code: Number(code) }
    })
  )

const brokenIf = `repositories: [acme/widgets]
agents:
  codex: {harness: codex}
loops:
  - name: fix
    on: issues
    prompt: "Fix {{ item.title }}"
    agent: codex
    if: '"bug" in item.labels &&'
`

describe.concurrent("usine check", () => {
  layer(NodeContext.layer)((it) => {
    it.scoped(
      "accepts usine.yaml.example",
      () =>
        Effect.gen(function* () {
          const result = yield* usine(root, "check", "usine.yaml.example")
          assert.strictEqual(result.code, 0, result.stderr)
          assert.strictEqual(result.stdout.trim(), "ok: usine.yaml.example (3 loops, 1 repository, 2 agents, 1 worker)")
        }),
      60_000
    )

    it.scoped(
      "rejects a broken file with the path, line and column of each problem",
      () =>
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped()
          const file = (yield* Path.Path).join(dir, "broken.yaml")
          yield* fs.writeFileString(file, brokenIf.replace("[acme/widgets]", "[acme/widgets]\npoll_interval: soon"))
          const result = yield* usine(dir, "check", file)
          assert.strictEqual(result.code, 1)
          assert.strictEqual(result.stdout, "")
          const lines = result.stderr.trim().split("\n")
          assert.strictEqual(lines.length, 2, result.stderr)
          assert.match(lines[0] ?? "", /broken\.yaml:2:16 poll_interval: expected seconds/)
          assert.include(lines[1], `${file}:10:9 loops[0].if: invalid CEL expression`)
        }),
      60_000
    )

    it.scoped(
      "refuses a comparison with a value the field never holds, naming the allowed ones",
      () =>
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped()
          const example = yield* fs.readFileString(`${root}/usine.yaml.example`)
          yield* fs.writeFileString(`${dir}/usine.yaml`, example.replace('item.state == "open"', 'item.state == "OPEN"'))
          const result = yield* usine(dir, "check")
          assert.strictEqual(result.code, 1)
          const line = example.split("\n").findIndex((text) => text.includes('item.state == "open"')) + 1
          assert.match(
            result.stderr.trim(),
            new RegExp(`^usine\\.yaml:${line}:\\d+ loops\\[0\\]\\.if: \`item\\.state == "OPEN"\` can never hold: item\\.state is one of open, closed$`)
          )
        }),
      60_000
    )

    it.scoped(
      "reads usine.yaml by default and fails on a YAML syntax error",
      () =>
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped()
          yield* fs.writeFileString(`${dir}/usine.yaml`, "repositories: [acme/widgets\nloops: []\n")
          const result = yield* usine(dir, "check")
          assert.strictEqual(result.code, 1)
          assert.match(result.stderr.trim(), /^usine\.yaml:2:1 Flow sequence/)
        }),
      60_000
    )

    it.scoped(
      "fails on a missing file",
      () =>
        Effect.gen(function* () {
          const fs = yield* FileSystem.FileSystem
          const dir = yield* fs.makeTempDirectoryScoped()
          const result = yield* usine(dir, "check", "absent.yaml")
          assert.strictEqual(result.code, 1)
          assert.strictEqual(result.stderr.trim(), "absent.yaml: cannot read the file: no such file")
        }),
      60_000
    )
  })
})
