import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect, Layer } from "effect"
import type { BrowserContext, Page } from "playwright-core"
import { BOARD_TOKEN } from "../../support/daemonConfig"
import { freePort } from "../../support/freePort"
import { botAndRepository, scopedDir, scopedSim } from "../../support/scopedSim"
import { startUsine } from "../../support/UsineProcess"
import { browserConfig } from "./browserConfig"
import { chromiumMissing, scopedBrowser } from "./scopedBrowser"
import { step } from "./step"

/** `usine up` on the emulator and a Chromium not yet logged in, for the login, logout, expiry and throttle tests. */
interface SessionWorldShape {
  /** The Board's address, ending in `/`. */
  readonly url: string
  readonly browser: BrowserContext
}

export class SessionWorld extends Context.Tag("test/SessionWorld")<SessionWorld, SessionWorldShape>() {}

/** Fills the Board's login form with `token` and submits it. */
export const submitToken = (page: Page, url: string, token: string) =>
  Effect.gen(function* () {
    yield* step(() => page.goto(`${url}login`))
    yield* step(() => page.fill('[data-testid="login"] input[name="token"]', token))
    yield* step(() => page.click('[data-testid="login"] button[type="submit"]'))
  })

/** Logs in with the right token and waits for Needs you. */
export const logIn = (page: Page, url: string) =>
  submitToken(page, url, BOARD_TOKEN).pipe(
    Effect.zipRight(step(() => page.waitForURL(url))),
    Effect.zipRight(step(() => page.locator("h1", { hasText: "Needs you" }).waitFor()))
  )

/**
 * The browser suite's usine.yaml with these extra `board:` keys (`session_idle: 3s`), the daemon and Chromium. Under
 * `CI=true` a missing Chromium fails the suite instead of skipping it.
 */
export const SessionWorldLive = (boardKeys: string) =>
  Layer.scoped(
    SessionWorld,
    Effect.gen(function* () {
      if (chromiumMissing !== undefined) return yield* Effect.dieMessage(chromiumMissing)
      const dir = yield* scopedDir
      const sim = yield* scopedSim
      const token = yield* botAndRepository(sim)
      const config = browserConfig({ apiUrl: sim.url, token, boardPort: yield* freePort, dir })
      writeFileSync(join(dir, "usine.yaml"), config.replace(`  token: ${BOARD_TOKEN}\n`, `  token: ${BOARD_TOKEN}\n${boardKeys}`))
      const usine = yield* startUsine(dir, ["up"])
      yield* Effect.addFinalizer(() =>
        usine.child.exitCode === null
          ? usine.signal("SIGTERM").pipe(Effect.zipRight(Effect.ignore(usine.exit("30 seconds"))))
          : Effect.void
      )
      const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
      const browser = yield* scopedBrowser
      browser.setDefaultTimeout(30_000)
      return { url, browser }
    })
  )
