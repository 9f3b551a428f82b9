import { mkdirSync, statSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import type { Page } from "playwright-core"

/** Kept as test artifacts (git-ignored). */
const SCREENSHOTS = fileURLToPath(new URL("../../../../../artifacts/screenshots/", import.meta.url))

/** The README's pictures, written by `pnpm run screenshots` (`USINE_UPDATE_SCREENSHOTS=1`). */
const README_SCREENSHOTS = fileURLToPath(new URL("../../../../../docs/screenshots/", import.meta.url))

/** Saves the whole page as `artifacts/screenshots/<name>.png` and returns the file. */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    const file = `${SCREENSHOTS}${name}.png`
    await page.screenshot({ path: file, fullPage: true, animations: "disabled" })
    return file
  })

/**
 * Saves what the viewport shows as `<name>.png`: into `docs/screenshots/` under `USINE_UPDATE_SCREENSHOTS=1` (the
 * README's pictures), else among the test artifacts. Returns the file and its size in bytes.
 */
export const screen = (page: Page, name: string) =>
  Effect.promise(async () => {
    const folder = process.env["USINE_UPDATE_SCREENSHOTS"] === "1" ? README_SCREENSHOTS : `${SCREENSHOTS}screens/`
    mkdirSync(folder, { recursive: true })
    const file = `${folder}${name}.png`
    await page.screenshot({ path: file, animations: "disabled", caret: "hide" })
    return { file, bytes: statSync(file).size }
  })
