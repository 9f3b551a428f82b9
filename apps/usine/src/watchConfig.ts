import { FileSystem } from "@effect/platform"
import { Duration, Effect, Option, Redacted } from "effect"
import { parseConfig } from "@usine/core/config/parseConfig"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { trustWarnings } from "@usine/core/trust/trustWarnings"
import { ConfigState } from "./ConfigState"
import { daemonEnvironment } from "./daemon/DaemonEnvironment"

/** How often usine.yaml is looked at; an edit applies within this time. */
const CONFIG_POLL_INTERVAL = Duration.seconds(2)

const secret = (value: Option.Option<Redacted.Redacted<string>>) => Option.getOrUndefined(Option.map(value, Redacted.value))

/**
 * The keys only a restart applies: the ledger, the GitHub account and the Board's address are opened once at start.
 * The running values stay in force; the names of those that differ are returned. Workers follow a reload
 * (`WorkersReloadLayer`, ADR 0052).
 */
/** Where a ledger is, as one comparable string (its URL read, never shown). */
const ledgerKey = (ledger: UsineConfig["ledger"]) =>
  ledger._tag === "sqlite" ? `sqlite:${ledger.file}` : `postgres:${Redacted.value(ledger.url)}|${ledger.passwordFile ?? ""}`

export const reloadable = (
  running: UsineConfig,
  next: UsineConfig
): { readonly config: UsineConfig; readonly needRestart: ReadonlyArray<string> } => {
  const differs = [
    ["ledger", ledgerKey(running.ledger) !== ledgerKey(next.ledger)],
    ["github", running.github.apiUrl !== next.github.apiUrl || running.github.tokenFile !== next.github.tokenFile ||
      secret(running.github.token) !== secret(next.github.token) ||
      JSON.stringify(running.github.app) !== JSON.stringify(next.github.app) ||
      secret(running.github.webhookSecret) !== secret(next.github.webhookSecret)],
    ["board.listen", running.board.listen.host !== next.board.listen.host || running.board.listen.port !== next.board.listen.port],
    ["board.token", secret(running.board.token) !== secret(next.board.token)],
    ["board.host_name", running.board.hostName !== next.board.hostName],
    ["board.session_idle", !Duration.equals(running.board.sessionIdle, next.board.sessionIdle)],
    ["board.session_lifetime", !Duration.equals(running.board.sessionLifetime, next.board.sessionLifetime)],
    ["board.trust_proxy", running.board.trustProxy !== next.board.trustProxy]
  ] as const
  return {
    config: {
      ...next,
      ledger: running.ledger,
      github: running.github,
      board: { ...running.board, columns: next.board.columns }
    },
    needRestart: differs.filter(([, changed]) => changed).map(([key]) => key)
  }
}

/**
 * Looks at usine.yaml at once and then every `CONFIG_POLL_INTERVAL` on the Clock. A valid change is put in force for
 * the next cycle; an invalid or unreadable one is logged and recorded for the Board, and the configuration in force
 * stays. The first look applies the file silently: it is what the daemon started from, or an edit made since.
 */
export const watchConfig = Effect.fn("watchConfig")(function* (file: string) {
  const fs = yield* FileSystem.FileSystem
  const state = yield* ConfigState
  let seen: string | undefined
  let first = true

  const check = Effect.gen(function* () {
    const read = yield* fs.readFileString(file).pipe(Effect.either)
    if (read._tag === "Left") {
      const message = `${file}: cannot read the file: ${read.left.message}`
      if (seen !== message) {
        seen = message
        yield* state.reject(file, message)
        yield* Effect.logWarning(`configuration change rejected; the previous configuration stays in force: ${message}`)
      }
      return
    }
    if (read.right === seen) return
    seen = read.right
    const env = yield* Effect.sync(() => ({ ...daemonEnvironment() }))
    const parsed = yield* parseConfig(read.right, { env, file }).pipe(Effect.either)
    if (parsed._tag === "Left") {
      yield* state.reject(file, parsed.left.message)
      return yield* Effect.logWarning(
        `configuration change rejected; the previous configuration stays in force:\n${parsed.left.message}`
      )
    }
    const { config, needRestart } = reloadable(yield* state.get, parsed.right)
    yield* state.apply(config)
    if (first) return
    yield* Effect.logInfo(
      `configuration reloaded: ${config.loops.map((loop) => loop.name).join(", ") || "no loops"}`
    ).pipe(Effect.annotateLogs("file", file))
    for (const warning of trustWarnings(config)) yield* Effect.logWarning(warning)
    if (needRestart.length > 0) {
      yield* Effect.logWarning(`these changes apply at the next start only: ${needRestart.join(", ")}`)
    }
  })

  return yield* check.pipe(
    Effect.catchAllCause((cause) => Effect.logError("configuration check failed", cause)),
    Effect.ensuring(Effect.sync(() => (first = false))),
    Effect.zipRight(Effect.sleep(CONFIG_POLL_INTERVAL)),
    Effect.forever
  )
})
