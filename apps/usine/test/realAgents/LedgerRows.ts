import { createRequire } from "node:module"
import { Effect, Option } from "effect"
import { eventually } from "../support/http"

interface Database {
  prepare(sql: string): { all(...params: ReadonlyArray<unknown>): Array<Record<string, unknown>> }
  close(): void
}

// The ledger's own driver, from the store package that owns it: the app has no SQLite dependency of its own.
const storeRequire = createRequire(createRequire(import.meta.url).resolve("@usine/store/Sql"))
const Sqlite = storeRequire("better-sqlite3") as new (
  path: string,
  options: { readonly readonly: boolean; readonly fileMustExist: boolean; readonly timeout: number }
) => Database

interface RunRow {
  readonly id: string
  readonly state: string
  readonly number: number
}

interface AttemptRow {
  readonly number: number
  readonly startedAt: number
  readonly endedAt: number | undefined
  readonly outcome:
    | {
        readonly _tag: "Succeeded" | "Failed" | "Canceled"
        readonly failure?: { readonly _tag: string; readonly reason: string; readonly evidence: string; readonly retryAt?: number }
        readonly result?: { readonly pullRequestNumber?: number; readonly pullRequestUrl?: string; readonly branch?: string }
      }
    | undefined
}

interface AgentHoldRow {
  readonly until: number
  readonly reason: string
  readonly attemptId: string
}

/** One read-only look at the daemon's ledger, closed at once: the daemon keeps writing meanwhile. */
const read = <A>(file: string, query: (db: Database) => A) =>
  Effect.try(() => {
    const db = new Sqlite(file, { readonly: true, fileMustExist: true, timeout: 5_000 })
    try {
      return query(db)
    } finally {
      db.close()
    }
  })

/** What the tests read of a running daemon's ledger, by Loop: Runs, Attempts and the brakes' agent holds. */
export const ledgerRows = (file: string) => {
  const runs = (loop: string) =>
    read(file, (db) =>
      db.prepare("SELECT id, state, number FROM usine_runs WHERE loop = ? ORDER BY created_at").all(loop) as unknown as ReadonlyArray<RunRow>
    )
  const attempts = (runId: string) =>
    read(file, (db) =>
      db
        .prepare("SELECT number, started_at, ended_at, outcome_json FROM usine_attempts WHERE run_id = ? ORDER BY number")
        .all(runId)
        .map((row): AttemptRow => ({
          number: Number(row["number"]),
          startedAt: Number(row["started_at"]),
          endedAt: row["ended_at"] === null ? undefined : Number(row["ended_at"]),
          outcome: row["outcome_json"] === null ? undefined : JSON.parse(String(row["outcome_json"]))
        }))
    )
  const agentHold = (agent: string) =>
    read(file, (db) =>
      Option.fromNullable(
        db.prepare("SELECT until, reason, attempt_id AS attemptId FROM usine_agent_holds WHERE agent = ?").all(agent)[0] as
          | AgentHoldRow
          | undefined
      )
    )
  /** The Loop's one Run once it is closed (Succeeded, Failed or Canceled), waiting at most `seconds`. */
  const closedRun = (loop: string, seconds: number) =>
    eventually(
      `the ${loop} Run closed`,
      Effect.map(runs(loop).pipe(Effect.orElseSucceed(() => [])), (found) =>
        Option.filter(Option.fromNullable(found[0]), (run) => ["Succeeded", "Failed", "Canceled"].includes(run.state))
      ),
      seconds
    ).pipe(Effect.catchAll((error) => Effect.flatMap(whereItStands(loop), (state) => Effect.fail(new Error(`${typeof error === "string" ? error : error.message}; ${state}`)))))
  /** A Loop's Runs and their Attempts as one line, for a test that waited in vain: what CI prints is all we see. */
  const whereItStands = (loop: string) =>
    Effect.gen(function* () {
      const found = yield* runs(loop)
      const parts: Array<string> = []
      for (const run of found) {
        const tried = yield* attempts(run.id)
        const each = tried.map((attempt) => {
          const failure = attempt.outcome?.failure
          const ended = attempt.endedAt === undefined ? "open" : `${attempt.endedAt - attempt.startedAt} ms`
          return `#${attempt.number} ${attempt.outcome?._tag ?? "running"} ${ended}${failure === undefined ? "" : ` ${failure._tag}: ${failure.reason} ${failure.evidence.slice(-300)}`}`
        })
        parts.push(`Run ${run.id} ${run.state} [${each.join("; ")}]`)
      }
      return parts.length === 0 ? `no Run of ${loop}` : parts.join(" | ")
    }).pipe(Effect.orElseSucceed(() => "the ledger could not be read"))
  /** How many notifications of `event` the ledger has marked delivered (sent and answered 2xx). */
  const delivered = (event: string) =>
    read(file, (db) =>
      Number(db.prepare("SELECT count(*) AS n FROM usine_notifications WHERE event = ? AND delivered_at IS NOT NULL").all(event)[0]?.["n"])
    )
  /** Tokens (input and output) each scope's daily figures hold, all days together: `global`, `loop:<name>`. */
  const dailyTokens = () =>
    read(file, (db) =>
      new Map(
        db.prepare("SELECT scope, name, sum(input_tokens + output_tokens) AS n FROM usine_usage_days GROUP BY scope, name").all()
          .map((row) => [row["scope"] === "global" ? "global" : `${String(row["scope"])}:${String(row["name"])}`, Number(row["n"])] as const)
      )
    )
  return { runs, attempts, agentHold, closedRun, delivered, dailyTokens }
}
