import { existsSync } from "node:fs"
import { Effect } from "effect"
import { type BrowserContext, chromium } from "playwright-core"
import { scopedDir } from "../../support/scopedSim"

/** Debian's Chromium; the suite never downloads a browser. */
const CHROMIUM = "/usr/bin/chromium"

/** Why the browser suite cannot run here, or undefined when it can. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is absent: install Debian's chromium (apt-get install -y chromium) to run the browser tests`

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Chromium with a fresh profile for the scope; the scope's end closes it, then removes the profile. */
export const scopedBrowser = Effect.gen(function* () {
  const profile = yield* scopedDir
  return yield* Effect.acquireRelease(
    Effect.promise(() =>
      chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        args: ARGS,
        viewport: { width: 1280, height: 860 },
        timeout: 30_000
      })
    ),
    (context: BrowserContext) => Effect.promise(() => context.close())
  )
})
