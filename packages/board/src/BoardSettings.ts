import { Context, Duration, Layer, Option, type Redacted } from "effect"
import type { PullRequestApprover, StartApprover } from "@usine/core/config/ApprovalConfig"
import type { GlobalBudget, LoopBudget } from "@usine/core/config/BudgetConfig"
import type { CompiledLoop } from "@usine/core/config/CompiledLoop"
import type { UsineConfig } from "@usine/core/config/UsineConfig"
import { githubWebUrl } from "@usine/core/config/githubWebUrl"
import type { SessionPolicy } from "./BoardServer/LoginSessions"
import type { SignInSettings } from "./BoardServer/SignInSettings"

/** A Loop as the Loops page describes it. */
export interface LoopInfo {
  readonly name: string
  readonly on: "issues" | "pull_requests" | "schedule"
  /** The `if:` expression as written. */
  readonly if: string
  readonly repositories: ReadonlyArray<string>
  readonly agent: string
  readonly approval: "required" | "none"
  /** `required`: verified work waits for review before its pull request (ADR 0063); absent means none. */
  readonly pullRequestApproval?: "required" | "none" | undefined
  /** Who may approve each gate (ADR 0103); absent: anyone with the role. */
  readonly approvers?: { readonly start: StartApprover; readonly pullRequest: PullRequestApprover } | undefined
  /** The Agent that judges each verified round, if any. */
  readonly judge?: string | undefined
  /** Runs per Item between resets; schedule Loops have none. */
  readonly maxCycles?: number | undefined
  /** `cron` and `tz` of a schedule Loop. */
  readonly schedule?: string | undefined
  /** Token and cost caps per Run and per UTC day. */
  readonly budget?: LoopBudget | undefined
  /** Consecutive no-progress Attempts that park an Item; 0 or absent: no brake. */
  readonly maxNoProgress?: number | undefined
  readonly maxOpenPullRequests?: number | undefined
}

export interface BoardColumnSetting {
  readonly name: string
  readonly label: string
}

export interface BoardSettingsData {
  /** Port 0 takes any free port. */
  readonly listen: { readonly host: string; readonly port: number }
  /** Public names the Board is reached at (`usine.example.com` or `usine.example.com:8443`), besides the listen address. */
  readonly hostNames: ReadonlyArray<string>
  /** Required on every request when set; mandatory when the listen address is not loopback. */
  readonly token: Option.Option<Redacted.Redacted<string>>
  /** `board.auth.github`: people sign in with GitHub (ADR 0098); absent, the token alone. */
  readonly signIn: SignInSettings | undefined
  /** How long a login from the form lasts. */
  readonly session: SessionPolicy
  /** The public name browsers reach over https (`host_name` is an https URL): cookies set there say `Secure`. */
  readonly httpsHost: string | undefined
  /** A reverse proxy in front: its `X-Forwarded-Proto` and `X-Forwarded-For` are believed. */
  readonly trustProxy: boolean
  readonly columns: ReadonlyArray<BoardColumnSetting>
  readonly repositories: ReadonlyArray<string>
  readonly loops: ReadonlyArray<LoopInfo>
  /** How often live pages look at the ledger for changes. */
  readonly liveInterval: Duration.Duration
  /** Rows per list on the Runs and Needs you pages. */
  readonly pageSize: number
  /** The daemon's daily caps over every Loop. */
  readonly budget?: GlobalBudget | undefined
}

/** `https://usine.example.com` names the host `usine.example.com`, reached over https; a bare name stays as written. */
const publicName = (hostName: string): { readonly host: string; readonly https: boolean } => {
  if (!/^https?:\/\//i.test(hostName)) return { host: hostName, https: false }
  const url = new URL(hostName)
  return { host: url.host, https: url.protocol === "https:" }
}

const loopInfoOf = (loop: CompiledLoop): LoopInfo => ({
  name: loop.name,
  on: loop.on,
  if: loop.if.source,
  repositories: loop.repositories,
  agent: loop.agent,
  approval: loop.approval,
  pullRequestApproval: loop.pullRequestApproval,
  approvers: loop.approvers,
  ...(loop.judge === undefined ? {} : { judge: loop.judge }),
  ...(loop.on === "schedule"
    ? { schedule: `${loop.schedule.cron} (${loop.schedule.tz})` }
    : { maxCycles: loop.maxCycles, maxNoProgress: loop.maxNoProgress }),
  budget: loop.budget,
  maxOpenPullRequests: loop.maxOpenPullRequests
})

/** Sign-in with GitHub from `board.auth.github`; its callback is under `host_name`, which `usine check` requires. */
const signInOf = (config: UsineConfig): SignInSettings | undefined => {
  const github = config.board.auth?.github
  if (github === undefined || config.board.hostName === undefined) return undefined
  return {
    clientId: github.clientId,
    callbackUrl: `${config.board.hostName.replace(/\/$/, "")}/auth/github/callback`,
    webUrl: githubWebUrl(config.github.apiUrl),
    allow: config.board.allow.map((login) => login.toLowerCase())
  }
}

/**
 * The Board's settings as of now: each request asks `current()` when it is handled, so a reload of usine.yaml
 * reaches the next one (ADR 0029); never kept across requests.
 */
export class BoardSettings extends Context.Tag("usine/BoardSettings")<BoardSettings, { readonly current: () => BoardSettingsData }>() {
  /** Settings that never change: for tests and tools. */
  static readonly layer = (data: BoardSettingsData): Layer.Layer<BoardSettings> => Layer.succeed(BoardSettings, { current: () => data })

  static readonly fromConfig = (config: UsineConfig): BoardSettingsData => {
    const name = config.board.hostName === undefined ? undefined : publicName(config.board.hostName)
    return {
      listen: config.board.listen,
      hostNames: name === undefined ? [] : [name.host],
      token: config.board.token,
      signIn: signInOf(config),
      session: { idle: config.board.sessionIdle, lifetime: config.board.sessionLifetime },
      httpsHost: name?.https === true ? name.host : undefined,
      trustProxy: config.board.trustProxy,
      columns: config.board.columns,
      repositories: config.repositories,
      loops: config.loops.map(loopInfoOf),
      liveInterval: Duration.seconds(1),
      pageSize: 50,
      budget: config.budget
    }
  }

  /** Loopback, no token, no columns: a base for tests and tools. */
  static readonly defaults: BoardSettingsData = {
    listen: { host: "127.0.0.1", port: 0 },
    hostNames: [],
    token: Option.none(),
    signIn: undefined,
    session: { idle: Duration.hours(12), lifetime: Duration.days(7) },
    httpsHost: undefined,
    trustProxy: false,
    columns: [],
    repositories: [],
    loops: [],
    liveInterval: Duration.seconds(1),
    pageSize: 50
  }
}
