import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { step } from "./step"

type Marked = { usineMark?: string }

/** Sets a property on the tab's document: it survives only while the tab neither navigates nor reloads. */
export const markDocument = (page: Page) => step(() => page.evaluate(() => void ((globalThis as Marked).usineMark = "same document")))

/** Asserts the page changed in place since `markDocument`, by its script, not by a reload. */
export const stillSameDocument = (page: Page) =>
  step(() => page.evaluate(() => (globalThis as Marked).usineMark)).pipe(
    Effect.map((mark) => assert.strictEqual(mark, "same document", "the page updated in place, without a reload"))
  )
