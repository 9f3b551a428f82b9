import { randomBytes } from "node:crypto"
import type { SimUser } from "./SimUser"

/** An installation of an App on an account, for some of its repositories. */
export interface SimInstallation {
  readonly id: number
  readonly account: string
  /** Lowercase `owner/name` of each repository the installation may reach. */
  readonly repositories: ReadonlyArray<string>
}

/** A registered GitHub App: its id, slug, public key, bot account and installations. */
export interface SimApp {
  readonly id: number
  readonly slug: string
  readonly publicKeyPem: string
  readonly bot: SimUser
  readonly installations: Array<SimInstallation>
}

/** An installation access token (`ghs_…`) and when it stops working. */
interface InstallationToken {
  readonly token: string
  readonly installationId: number
  readonly bot: SimUser
  readonly expiresAtMs: number
}

/** GitHub's installation token life. */
const DEFAULT_TOKEN_LIFETIME_MS = 60 * 60_000

/**
 * GitHub Apps, their installations, and the installation tokens minted for them. A token authenticates as the
 * App's bot (`<slug>[bot]`) until `expiresAtMs`, then is GitHub's 401 "Bad credentials" everywhere.
 */
export class SimApps {
  readonly apps = new Map<number, SimApp>()
  private readonly tokens = new Map<string, InstallationToken>()
  /** The life of tokens minted from now on; a control call shortens it for tests. */
  tokenLifetimeMs = DEFAULT_TOKEN_LIFETIME_MS
  /** Installation tokens minted, and requests refused because their installation token had expired. */
  readonly counts = { minted: 0, refusedExpired: 0 }

  add(app: SimApp): void {
    this.apps.set(app.id, app)
  }

  /** The App and installation with this installation id. */
  installation(id: number): { readonly app: SimApp; readonly installation: SimInstallation } | undefined {
    for (const app of this.apps.values()) {
      const installation = app.installations.find((i) => i.id === id)
      if (installation !== undefined) return { app, installation }
    }
    return undefined
  }

  /** The installation of `app` that reaches `owner/name`. */
  installationFor(app: SimApp, fullName: string): SimInstallation | undefined {
    return app.installations.find((i) => i.repositories.includes(fullName.toLowerCase()))
  }

  mint(app: SimApp, installation: SimInstallation, nowMs: number): InstallationToken {
    const minted = {
      token: `ghs_sim${randomBytes(18).toString("hex")}`,
      installationId: installation.id,
      bot: app.bot,
      expiresAtMs: nowMs + this.tokenLifetimeMs
    }
    this.tokens.set(minted.token, minted)
    this.counts.minted += 1
    return minted
  }

  /** The bot a live installation token authenticates as; undefined for an unknown or expired token. */
  userOf(token: string, nowMs: number): SimUser | undefined {
    const minted = this.tokens.get(token)
    if (minted === undefined) return undefined
    if (minted.expiresAtMs > nowMs) return minted.bot
    this.counts.refusedExpired += 1
    return undefined
  }

  /** True when `token` is an installation token, live or not. */
  minted(token: string): boolean {
    return this.tokens.has(token)
  }
}
