import { homedir } from "node:os"
import { dirname, isAbsolute, resolve } from "node:path"
import { Effect, Option, Redacted } from "effect"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { resolveToken } from "@usine/github/resolveToken"
import { loadConfig } from "../loadConfig"
import { checkGitHub } from "@usine/github/checkGitHub"
import { checkPortFree } from "./checkPortFree"
import { daemonEnvironment, withholdSecrets } from "./DaemonEnvironment"
import { daemonSecrets } from "./daemonSecrets"

/** Everything `usine up` checked before it opens the ledger. */
export interface StartupPlan {
  readonly configFile: string
  readonly config: UsineConfig
  /** Absolute: relative paths in usine.yaml are read from the file's folder. */
  readonly ledgerFile: string
  readonly token: Redacted.Redacted<string>
  /** The GitHub account the token belongs to. */
  readonly login: string
  /** Values every log line, page and transcript row hides: tokens and the Agents' keys (`daemonSecrets`). */
  readonly secrets: ReadonlyArray<string>
  /** The environment usine started with, which `process.env` no longer holds the credentials of. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** A path of usine.yaml: `~/` is the home folder, a relative path is read from the file's folder. */
export const pathFrom = (configFile: string, path: string): string =>
  path === "~" || path.startsWith("~/")
    ? resolve(homedir(), path.slice(2))
    : isAbsolute(path) ? path : resolve(dirname(resolve(configFile)), path)

/**
 * The checks that stop `usine up` with one line before any work: the configuration, a token, GitHub reachable and
 * accepting the token, the Board's port free. The ledger's lock is the next check, when the daemon opens it.
 */
export const planStartup = Effect.fn("planStartup")(function* (configFile: string) {
  const config = yield* loadConfig(configFile)
  const env = daemonEnvironment()
  const token = yield* resolveToken({
    token: Option.getOrUndefined(Option.map(config.github.token, Redacted.value)),
    tokenFile: config.github.tokenFile === undefined ? undefined : pathFrom(configFile, config.github.tokenFile),
    env,
    useGhCli: true
  })
  const login = yield* checkGitHub(config.github.apiUrl, token)
  yield* checkPortFree(config.board.listen.host, config.board.listen.port)
  const secrets = daemonSecrets({ config, token, env })
  return {
    configFile,
    config,
    ledgerFile: pathFrom(configFile, config.ledger),
    token,
    login,
    secrets,
    env: yield* Effect.sync(() => withholdSecrets(secrets))
  } satisfies StartupPlan
})
