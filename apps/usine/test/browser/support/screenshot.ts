import { copyFileSync, mkdirSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { Page } from "playwright-core"

/** Kept as test artifacts (git-ignored). */
export const SCREENSHOTS = fileURLToPath(new URL("../../../../../artifacts/screenshots/", import.meta.url))
const README_IMAGE = fileURLToPath(new URL("../../../../../docs/board.png", import.meta.url))

/** Saves the whole page as `artifacts/screenshots/<name>.png` and returns the file. */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    const file = `${SCREENSHOTS}${name}.png`
    await page.screenshot({ path: file, fullPage: true, animations: "disabled" })
    return file
  })

/** With `USINE_UPDATE_SCREENSHOT=1`, this screenshot becomes the README's `docs/board.png`. */
export const keepForReadme = (file: string) =>
  Effect.sync(() => {
    if (process.env["USINE_UPDATE_SCREENSHOT"] === "1") copyFileSync(file, README_IMAGE)
  })
