import { assert, describe } from "@effect/vitest"
import { layer } from "@usine/testkit/layer"
import { Effect } from "effect"
import type { Cookie } from "playwright-core"
import { BOARD_TOKEN } from "../support/daemonConfig"
import { chromiumMissing } from "./support/scopedBrowser"
import { noProblems, scopedPage } from "./support/scopedPage"
import { logIn, SessionWorld, SessionWorldLive, submitToken } from "./support/SessionWorld"
import { step } from "./support/step"

// Under CI a missing Chromium fails (SessionWorldLive dies naming it); elsewhere the suite skips, saying why.
const skip = chromiumMissing !== undefined && process.env.CI !== "true"
const suite = skip ? `SKIPPED: ${chromiumMissing}` : "Board sessions in Chromium against usine up"
if (skip) console.warn(`skipping the browser tests: ${chromiumMissing}`)

const SESSION = "usine_session"

/** The session cookie Chromium holds for the Board, if any. */
const sessionCookie = (cookies: ReadonlyArray<Cookie>) =>
  cookies.find((cookie) => cookie.name === SESSION)

describe.skipIf(skip)(suite, () => {
  layer(SessionWorldLive(""), { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("logs in through the form: an HttpOnly SameSite=Strict random session, not the token, and a logout button", () =>
      Effect.gen(function* () {
        const { browser, url } = yield* SessionWorld
        const tab = yield* scopedPage(browser)
        yield* step(() => tab.page.goto(url))
        yield* step(() => tab.page.waitForURL(`${url}login`))
        yield* logIn(tab.page, url)
        const cookie = sessionCookie(yield* step(() => browser.cookies(url)))
        assert.isDefined(cookie)
        assert.isTrue(cookie?.httpOnly)
        assert.strictEqual(cookie?.sameSite, "Strict")
        assert.isFalse(cookie?.secure, "plain http on loopback")
        assert.match(cookie?.value ?? "", /^[A-Za-z0-9_-]{43}$/)
        assert.notInclude(cookie?.value ?? "", BOARD_TOKEN)
        yield* step(() => tab.page.locator('[data-testid="logout"] button').waitFor())
        yield* noProblems(tab)
      }), 60_000)

    it.scoped("logs out from the nav: back on the login page, and the old cookie no longer opens the Board", () =>
      Effect.gen(function* () {
        const { browser, url } = yield* SessionWorld
        const tab = yield* scopedPage(browser)
        yield* logIn(tab.page, url)
        const before = sessionCookie(yield* step(() => browser.cookies(url)))
        assert.isDefined(before)
        yield* step(() => tab.page.click('[data-testid="logout"] button'))
        yield* step(() => tab.page.waitForURL(`${url}login`))
        assert.isUndefined(sessionCookie(yield* step(() => browser.cookies(url))), "the browser dropped it")

        // A copy of the cookie taken before the logout: the server has forgotten the session.
        yield* step(() => browser.addCookies([{ name: SESSION, value: before?.value ?? "", url }]))
        yield* step(() => tab.page.goto(url))
        yield* step(() => tab.page.waitForURL(`${url}login`))
        const api = yield* step(() => tab.page.request.get(`${url}api/needs-you`, { maxRedirects: 0 }))
        assert.strictEqual(api.status(), 401)
        yield* noProblems(tab)
      }), 60_000)
  })

  layer(SessionWorldLive("  session_idle: 3s\n"), { timeout: "90 seconds", excludeTestServices: true })((it) => {
    it.scoped("a session idle longer than board.session_idle is over: the next page asks for the token again", () =>
      Effect.gen(function* () {
        const { browser, url } = yield* SessionWorld
        const tab = yield* scopedPage(browser)
        yield* logIn(tab.page, url)
        // Nothing on the login page talks to the Board, so the session sits idle.
        yield* step(() => tab.page.goto("about:blank"))
        yield* Effect.sleep("4 seconds")
        yield* step(() => tab.page.goto(url))
        yield* step(() => tab.page.waitForURL(`${url}login`))
        yield* step(() => tab.page.locator('[data-testid="login"] input[name="token"]').waitFor())
        yield* noProblems(tab)
      }), 60_000)

    it.scoped("after five wrong tokens the form answers 429 with Retry-After, even to the right token", () =>
      Effect.gen(function* () {
        const { browser, url } = yield* SessionWorld
        const tab = yield* scopedPage(browser)
        const { page } = tab
        yield* step(() => browser.clearCookies({ name: SESSION }))
        for (let i = 0; i < 5; i++) {
          yield* submitToken(page, url, `wrong-token-${i}`)
          yield* step(() => page.locator('[data-testid="login-error"]', { hasText: "Wrong token." }).waitFor())
        }
        const answer = page.waitForResponse((response) => response.url() === `${url}login` && response.request().method() === "POST")
        yield* submitToken(page, url, BOARD_TOKEN)
        const response = yield* step(() => answer)
        assert.strictEqual(response.status(), 429)
        assert.match((yield* step(() => response.headerValue("retry-after"))) ?? "", /^\d+$/)
        yield* step(() => page.locator('[data-testid="login-error"]', { hasText: /Too many wrong tokens\. Try again in \d+ s\./ }).waitFor())
        assert.isUndefined(sessionCookie(yield* step(() => browser.cookies(url))), "no session was opened")
      }), 60_000)
  })
})
