import { openLikeLedger } from "../BareSqlite"

/** Where one Run's time went, in ms, from the ledger's own timestamps (all taken by the daemon's `Clock`). */
export interface RunTimeline {
  readonly runId: string
  /** When the poll read the Item (the Event's `received_at`). */
  readonly receivedAt: number
  readonly succeededAt: number
  /** Event read by the poll → Run row written (claim). */
  readonly claim: number
  /** Run opened → Running: waiting for a slot, in Event order. */
  readonly slotWait: number
  /** Running → the Attempt row's `started_at`. */
  readonly attemptStart: number
  /** Attempt started → workspace ready (probe, default branch, mirror fetch, worktree add, journal). */
  readonly workspace: number
  /** Workspace ready → agent turn 1 recorded. */
  readonly turnStart: number
  /** Turn recorded → the agent's first instruction ran (its own clock): the durable session's wrapper. */
  readonly sessionStart: number
  /** The agent's own run, start to end (its own clock). */
  readonly agent: number
  /** The agent ended → its turn's end recorded: the follower's poll, exit status, process-group stop. */
  readonly endNoticed: number
  /** Turn end → outcome journaled: commit, diff, guards, pull-request lookups, ls-remote, push, open the pull request. */
  readonly harvest: number
  /** Outcome journaled → Run Succeeded: worktree removal, Attempt and Run rows. */
  readonly record: number
  /** Running → Succeeded. */
  readonly service: number
}

interface Row {
  readonly id: string
  readonly received_at: number
  readonly created_at: number
  readonly attempt_id: string
  readonly started_at: number
}

const agentClock = (text: string, word: string): number | undefined => {
  const match = new RegExp(`agent ${word} (\\d{13})`).exec(text)
  return match === null ? undefined : Number(match[1])
}

/** Every Succeeded Run of the ledger with one Attempt, its phases from Event to Succeeded; read after the daemon stopped. */
export const ledgerTimeline = (ledgerFile: string): { readonly runs: ReadonlyArray<RunTimeline>; readonly states: Readonly<Record<string, number>> } => {
  const db = openLikeLedger(ledgerFile)
  try {
    const states = Object.fromEntries(
      (db.prepare("SELECT state, count(*) AS n FROM usine_runs GROUP BY state").all() as ReadonlyArray<{ state: string; n: number }>).map(
        (r) => [r.state, r.n]
      )
    )
    const rows = db.prepare(
      `SELECT r.id, e.received_at, r.created_at, a.id AS attempt_id, a.started_at
       FROM usine_runs r JOIN usine_events e ON e.id = r.event_id JOIN usine_attempts a ON a.run_id = r.id AND a.number = 1
       WHERE r.state = 'Succeeded' AND (SELECT count(*) FROM usine_attempts x WHERE x.run_id = r.id) = 1`
    ).all() as ReadonlyArray<Row>
    const transitions = db.prepare("SELECT to_state, at FROM usine_transitions WHERE run_id = ? ORDER BY seq")
    const transcript = db.prepare("SELECT kind, text, at FROM usine_transcript_rows WHERE attempt_id = ? ORDER BY seq")
    const runs = rows.flatMap((run): ReadonlyArray<RunTimeline> => {
      const moves = transitions.all(run.id) as ReadonlyArray<{ to_state: string; at: number }>
      const at = (state: string) => moves.find((m) => m.to_state === state)?.at
      const lines = transcript.all(run.attempt_id) as ReadonlyArray<{ kind: string; text: string; at: number }>
      const row = (test: (text: string) => boolean) => lines.find((l) => test(l.text))
      const running = at("Running")
      const succeeded = at("Succeeded")
      const begin = row((t) => t.startsWith("workspace on "))?.at
      const turn = row((t) => t === "agent turn 1 started")?.at
      const started = lines.map((l) => agentClock(l.text, "started")).find((n) => n !== undefined)
      const ended = lines.map((l) => agentClock(l.text, "ended")).find((n) => n !== undefined)
      const turnEnd = row((t) => t.startsWith("agent turn 1 exited"))?.at
      const outcome = lines.at(-1)?.at
      if ([running, succeeded, begin, turn, started, ended, turnEnd, outcome].some((n) => n === undefined)) return []
      return [{
        runId: run.id,
        receivedAt: run.received_at,
        succeededAt: succeeded!,
        claim: run.created_at - run.received_at,
        slotWait: running! - run.created_at,
        attemptStart: run.started_at - running!,
        workspace: begin! - run.started_at,
        turnStart: turn! - begin!,
        sessionStart: started! - turn!,
        agent: ended! - started!,
        endNoticed: turnEnd! - ended!,
        harvest: outcome! - turnEnd!,
        record: succeeded! - outcome!,
        service: succeeded! - running!
      }]
    })
    return { runs, states }
  } finally {
    db.close()
  }
}
