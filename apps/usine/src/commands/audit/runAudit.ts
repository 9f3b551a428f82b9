import { Clock, Console, Data, Effect, Option } from "effect"
import type { AuditView } from "@usine/board/AuditTrail/auditView"
import { startupFailed } from "../../daemon/startupFailed"
import { formatAuditEntry } from "../../audit/formatAuditEntry"
import { parseSince } from "../../audit/parseSince"
import { loadConfig } from "../../loadConfig"
import { daemonApi } from "../../status/DaemonApi"

/** A `--since` or `--until` that is no time. */
class AuditTimeInvalid extends Data.TaggedError("AuditTimeInvalid")<{ readonly option: string; readonly text: string }> {
  override get message() {
    return `--${this.option} ${JSON.stringify(this.text)} is no time: write 2026-12-01, 2026-12-01T09:00Z, 30m, 12h or 7d`
  }
}

/** Entries asked for a page: the API's most. */
const PAGE = 500

interface AuditOptions {
  readonly config: string
  readonly since: Option.Option<string>
  readonly until: Option.Option<string>
  readonly login: Option.Option<string>
  readonly repo: Option.Option<string>
  readonly action: Option.Option<string>
  readonly loop: Option.Option<string>
  readonly json: boolean
}

/** What `usine audit` does once its options are parsed: every page of `/api/audit`, printed as it comes. */
export const runAudit = (options: AuditOptions) =>
  Effect.gen(function* () {
    const loaded = yield* loadConfig(options.config)
    const get = daemonApi(loaded)
    const now = yield* Clock.currentTimeMillis
    const time = (option: "since" | "until", text: Option.Option<string>) =>
      Option.match(text, {
        onNone: () => Effect.succeed(undefined),
        onSome: (t) => {
          const millis = parseSince(t, now)
          return millis === undefined ? Effect.fail(new AuditTimeInvalid({ option, text: t })) : Effect.succeed(millis)
        }
      })
    const filters = new URLSearchParams({ limit: String(PAGE) })
    const since = yield* time("since", options.since)
    const until = yield* time("until", options.until)
    if (since !== undefined) filters.set("since", String(since))
    if (until !== undefined) filters.set("until", String(until))
    for (const [key, value] of [["login", options.login], ["repository", options.repo], ["action", options.action], ["loop", options.loop]] as const) {
      Option.map(value, (v) => filters.set(key, v))
    }
    let before: string | undefined
    do {
      const query = new URLSearchParams(filters)
      if (before !== undefined) query.set("before", before)
      const page = yield* get<AuditView>(`/api/audit?${query.toString()}`)
      for (const entry of page.entries) yield* Console.log(options.json ? JSON.stringify(entry) : formatAuditEntry(entry))
      before = page.next
    } while (before !== undefined)
  }).pipe(Effect.catchAll(startupFailed("audit")))
