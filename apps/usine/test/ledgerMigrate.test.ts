import { Command, FileSystem, Path } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { assert, describe } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"
import { itemEventIdOf } from "@usine/core/ids/EventId"
import { itemKeyOf } from "@usine/core/ids/ItemKey"
import * as Sql from "@usine/store/Sql"
import * as SqlRunStore from "@usine/store/SqlRunStore"
import { layer } from "@usine/testkit/layer"
import { freshPgDatabase, postgresMissing } from "@usine/testkit/PgCluster"
import { runLedger } from "@usine/testkit/runLedger"
import { USINE_BIN as bin } from "./support/usineBin"

const skip = postgresMissing !== undefined && process.env["CI"] !== "true"
const text = <E, R>(stream: Stream.Stream<Uint8Array, E, R>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** The real CLI in `dir`; its exit code and output. */
const usine = (dir: string, ...args: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const child = yield* Command.start(Command.make("node", bin, ...args).pipe(Command.workingDirectory(dir)))
    const [stdout, stderr, code] = yield* Effect.all([text(child.stdout), text(child.stderr), child.exitCode], { concurrency: "unbounded" })
    return { stdout, stderr, code: Number(code) }
  }))

/** A daemon's SQLite ledger at `.usine/ledger.db` under `dir`, with `runs` Runs claimed through the store, then closed. */
const seededLedger = (dir: string, runs: number) =>
  Effect.gen(function*() {
    const file = (yield* Path.Path).join(dir, ".usine", "ledger.db")
    yield* (yield* FileSystem.FileSystem).makeDirectory((yield* Path.Path).dirname(file), { recursive: true })
    yield* Effect.gen(function*() {
      const store = yield* runLedger
      for (let number = 1; number <= runs; number++) {
        yield* store.recordAndClaim({
          eventId: itemEventIdOf({ loop: "fix", repository: "acme/widgets", number, contentHash: `h${number}`, generation: 0 }),
          loop: "fix",
          itemKey: itemKeyOf("acme/widgets", number),
          repository: "acme/widgets",
          number,
          generation: 0,
          contentHash: `h${number}`,
          task: `fix #${number}`,
          agent: "codex",
          approvalRequired: true,
          maxCycles: 3,
          receivedAt: 1_764_900_000_000 + number
        })
      }
    }).pipe(Effect.provide(SqlRunStore.layer.pipe(Layer.provideMerge(Sql.layer(file)))), Effect.scoped, Effect.orDie)
    return file
  })

describe.skipIf(skip)("usine ledger migrate (issue 36)", () => {
  layer(NodeContext.layer)((it) => {
    it.scoped("copies the config's SQLite ledger into PostgreSQL, verifies every table, and never prints the password", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        yield* seededLedger(dir, 7)
        yield* fs.writeFileString(`${dir}/usine.yaml`, "repositories: [acme/widgets]\nagents:\n  codex: {harness: codex}\nloops: []\n")
        // The cluster trusts local connections: the password is sent nowhere, but it is in the URL the user typed.
        const address = new URL(yield* freshPgDatabase)
        address.password = "s3cret-pw"
        const url = address.toString()
        const copied = yield* usine(dir, "ledger", "migrate", "--to", url)
        assert.strictEqual(copied.code, 0, copied.stderr)
        assert.match(copied.stdout, /usine_runs\s+7 rows copied/)
        assert.match(copied.stdout, /usine_events\s+7 rows copied/)
        assert.match(copied.stdout, /verified: \d+ tables, [\d,]+ rows, each table's rows and digest equal on both engines/)
        assert.include(copied.stdout, `${address.username}:***@`)
        assert.notInclude(copied.stdout + copied.stderr, "s3cret-pw")

        const verified = yield* usine(dir, "ledger", "migrate", "--to", url, "--verify")
        assert.strictEqual(verified.code, 0, verified.stderr)
        assert.notInclude(verified.stdout, "rows copied")
        assert.match(verified.stdout, /^comparing .*ledger\.db with /)

        const again = yield* usine(dir, "ledger", "migrate", "--to", url)
        assert.strictEqual(again.code, 1)
        assert.match(again.stderr, /usine ledger migrate: usine_\w+: the PostgreSQL ledger already holds \d+ rows: copy only into an empty ledger/)
        assert.notInclude(again.stderr, "s3cret-pw")
      }), 120_000)

    it.scoped("refuses while a daemon holds the SQLite ledger, and a URL that is not PostgreSQL's", () =>
      Effect.gen(function*() {
        const fs = yield* FileSystem.FileSystem
        const dir = yield* fs.makeTempDirectoryScoped()
        const file = yield* seededLedger(dir, 1)
        const url = yield* freshPgDatabase
        // The lock a running daemon holds, held here by this process.
        yield* Layer.build(Sql.layer(file)).pipe(Effect.orDie)
        const locked = yield* usine(dir, "ledger", "migrate", "--from", file, "--to", url)
        assert.strictEqual(locked.code, 1)
        assert.include(locked.stderr, "is already open in process")
        const wrong = yield* usine(dir, "ledger", "migrate", "--from", file, "--to", "mysql://x/y")
        assert.strictEqual(wrong.code, 1)
        assert.include(wrong.stderr, "--to: expected a postgres:// URL")
      }), 120_000)
  })
})
