import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { configOption } from "./up"

const fromOption = Options.file("from").pipe(
  Options.withDescription("the SQLite ledger to copy (default: the config's `ledger:` file)"),
  Options.optional
)
const toOption = Options.text("to").pipe(Options.withDescription("the PostgreSQL ledger: postgres://user@host:port/database"))
const passwordFileOption = Options.file("password-file").pipe(
  Options.withDescription("a file holding the PostgreSQL password, kept out of the URL"),
  Options.optional
)
const verifyOption = Options.boolean("verify").pipe(
  Options.withDescription("copy nothing: compare the two ledgers table by table (rows and digests)")
)

/**
 * `usine ledger migrate --to postgres://…`: copies the SQLite ledger into an empty PostgreSQL ledger in one
 * transaction, then reads both back and compares each table's rows and digest (issue 36). The daemon must be
 * stopped: the SQLite ledger's lock is taken first.
 */
const migrate = Command.make(
  "migrate",
  { config: configOption, from: fromOption, to: toOption, passwordFile: passwordFileOption, verify: verifyOption },
  (options) => Effect.flatMap(Effect.promise(() => import("./ledger/runLedgerMigrate")), ({ runLedgerMigrate }) => runLedgerMigrate(options))
).pipe(Command.withDescription("Copy a SQLite ledger into PostgreSQL and verify it, table by table."))

/** `usine ledger`: what is done to the ledger itself, the daemon stopped. */
export const ledger = Command.make("ledger").pipe(
  Command.withDescription("Work on the ledger itself (the daemon stopped)."),
  Command.withSubcommands([migrate])
)
