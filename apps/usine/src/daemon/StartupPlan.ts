import { homedir, hostname } from "node:os"
import { dirname, isAbsolute, resolve } from "node:path"
import { Effect, Option, Redacted } from "effect"
import type { LedgerPlace } from "@usine/core/config/LedgerConfig"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import type { GitHubCredential } from "@usine/github/GitHubCredential"
import { credentialOf, resolveCredential } from "@usine/github/resolveCredential"
import { ownerOnlyFile } from "@usine/github/resolveToken"
import { loadConfig } from "../loadConfig"
import { checkGitHubCredential } from "@usine/github/checkGitHub"
import { AGENT_IDENTITY, botIdentity, type CommitIdentity } from "@usine/executor/Harvest/CommitIdentity"
import { checkPortFree } from "./checkPortFree"
import { daemonEnvironment, withholdSecrets } from "./DaemonEnvironment"
import { daemonSecrets } from "./daemonSecrets"
import { refuseNewerLedger } from "./refuseNewerLedger"
import type { SignInApp } from "./GitHubBoardPeople"

/** Everything `usine up` checked before it opens the ledger. */
export interface StartupPlan {
  readonly configFile: string
  readonly config: UsineConfig
  /** The ledger, its paths absolute: relative paths in usine.yaml are read from the file's folder. */
  readonly ledger: LedgerPlace
  /** The daemon's own files (its logs): the SQLite ledger's folder, or `.usine` beside usine.yaml. */
  readonly stateFolder: string
  /**
   * This process's name on a shared PostgreSQL ledger (ADR 0109), its connections' `application_name`: host and pid,
   * within PostgreSQL's 63 bytes.
   */
  readonly node: string
  /** The token, or the GitHub App's installation tokens (each consumer asks for the current one at each use). */
  readonly token: GitHubCredential
  /** The GitHub account the token belongs to; an App's bot, `<slug>[bot]`. */
  readonly login: string
  /** Who the Attempts' commits are by: an App's bot as GitHub credits it; under a token, usine's own name. */
  readonly commitIdentity: CommitIdentity
  /** `board.auth.github` with its client secret resolved; absent without sign-in. */
  readonly signIn: SignInApp | undefined
  /** Values every log line, page and transcript row hides: tokens and the Agents' keys (`daemonSecrets`). */
  readonly secrets: ReadonlyArray<string>
  /** The environment usine started with, which `process.env` no longer holds the credentials of. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The ledger's place with its paths made absolute, and the folder for the daemon's own files. */
const placesOf = (configFile: string, ledger: LedgerPlace): { readonly ledger: LedgerPlace; readonly stateFolder: string } =>
  ledger._tag === "sqlite"
    ? { ledger: { ...ledger, file: pathFrom(configFile, ledger.file) }, stateFolder: dirname(pathFrom(configFile, ledger.file)) }
    : {
      ledger: { ...ledger, passwordFile: ledger.passwordFile === undefined ? undefined : pathFrom(configFile, ledger.passwordFile) },
      stateFolder: pathFrom(configFile, ".usine")
    }

/** A path of usine.yaml: `~/` is the home folder, a relative path is read from the file's folder. */
export const pathFrom = (configFile: string, path: string): string =>
  path === "~" || path.startsWith("~/")
    ? resolve(homedir(), path.slice(2))
    : isAbsolute(path) ? path : resolve(dirname(resolve(configFile)), path)

/** Where usine.yaml says the GitHub credential is: `github.app`, `github.token`, `github.token_file`, then the environment. */
export const credentialSources = (configFile: string, config: UsineConfig, env: Readonly<Record<string, string | undefined>>) => {
  const { app, apiUrl, token, tokenFile } = config.github
  return {
    token: Option.getOrUndefined(Option.map(token, Redacted.value)),
    tokenFile: tokenFile === undefined ? undefined : pathFrom(configFile, tokenFile),
    app: app === undefined
      ? undefined
      : { appId: app.id, privateKeyFile: pathFrom(configFile, app.privateKeyFile), installationId: app.installationId },
    repositories: config.repositories,
    apiUrl,
    env,
    useGhCli: true
  }
}

/** `board.auth.github`'s client secret, inline or read from `client_secret_file` (its owner's only, as token files). */
const signInAppOf = (configFile: string, config: UsineConfig) =>
  Effect.gen(function* () {
    const auth = config.board.auth?.github
    if (auth === undefined) return undefined
    const clientSecret = Option.isSome(auth.clientSecret)
      ? auth.clientSecret.value
      : Redacted.make(yield* ownerOnlyFile("board.auth.github.client_secret_file", pathFrom(configFile, auth.clientSecretFile ?? "")))
    return { clientId: auth.clientId, clientSecret, apiUrl: config.github.apiUrl } satisfies SignInApp
  })

/**
 * The checks that stop `usine up` with one line before any work: the configuration, a token (or the App's key),
 * GitHub reachable and accepting it (an App mints its first installation token), the Board's port free, a ledger no
 * newer usine migrated. The ledger's lock is the next check, when the daemon opens it.
 */
export const planStartup = Effect.fn("planStartup")(function* (configFile: string) {
  const config = yield* loadConfig(configFile)
  const places = placesOf(configFile, config.ledger)
  if (places.ledger._tag === "sqlite") yield* refuseNewerLedger(places.ledger.file)
  const env = daemonEnvironment()
  const credential = yield* resolveCredential(credentialSources(configFile, config, env))
  const token = credentialOf(credential)
  const { login, botUserId } = yield* checkGitHubCredential(config.github.apiUrl, credential)
  yield* checkPortFree(config.board.listen.host, config.board.listen.port)
  const signIn = yield* signInAppOf(configFile, config)
  const secrets = daemonSecrets({
    config,
    token,
    privateKey: credential._tag === "App" ? credential.app.privateKey : undefined,
    signInSecret: signIn === undefined ? undefined : Redacted.value(signIn.clientSecret),
    env
  })
  return {
    configFile,
    config,
    ...places,
    node: `usine@${hostname().slice(0, 40)}:${process.pid}`.slice(0, 63),
    token,
    login,
    signIn,
    commitIdentity: botUserId === undefined ? AGENT_IDENTITY : botIdentity(login, botUserId),
    secrets,
    env: yield* Effect.sync(() => withholdSecrets(secrets))
  } satisfies StartupPlan
})
