import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { BrowserContext, Page } from "playwright-core"

/** A tab and what went wrong in it: uncaught script errors, console errors (a CSP refusal is one). */
interface WatchedPage {
  readonly page: Page
  readonly problems: () => ReadonlyArray<string>
}

/** A new tab for the scope, closed at its end. */
export const scopedPage = (context: BrowserContext) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<WatchedPage> => {
      const page = await context.newPage()
      const problems: Array<string> = []
      page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(`console error at ${page.url()}: ${message.text()}`)
      })
      return { page, problems: () => [...problems] }
    }),
    ({ page }) => Effect.promise(() => page.close())
  )

/** Asserts the tab logged no script error and no console error so far. */
export const noProblems = ({ problems }: WatchedPage) => Effect.sync(() => assert.deepStrictEqual(problems(), []))
