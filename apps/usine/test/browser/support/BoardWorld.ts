import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { Context, Effect, Layer, Option } from "effect"
import type { BrowserContext } from "playwright-core"
import type { BoardView } from "@usine/board/BoardViews/boardView"
import type { StartedSim } from "@usine/github-sim/startSim"
import { BOARD_TOKEN, REPOSITORY, SAMPLE_REPOSITORY } from "../../support/daemonConfig"
import { board, eventually, json } from "../../support/http"
import { freePort } from "../../support/freePort"
import { scopedDir, scopedSim } from "../../support/scopedSim"
import { startUsine, type UsineProcess } from "../../support/UsineProcess"
import { browserConfig } from "./browserConfig"
import { scopedBrowser } from "./scopedBrowser"
import { scopedPage } from "./scopedPage"

/** What the browser tests share: the emulator, `usine up` on it, and a Chromium logged in to its Board. */
interface BoardWorldShape {
  readonly sim: StartedSim
  /** The token of the account usine works as. */
  readonly token: string
  /** The Board's address, ending in `/`. */
  readonly url: string
  readonly usine: UsineProcess
  readonly browser: BrowserContext
  /** Opens an issue on the emulator's repository, as its owner, with one label. */
  readonly openIssue: (title: string, body: string, label: string) => Effect.Effect<{ readonly number: number }>
  /** Waits until polling has put the Item on the Board (read through the Board's JSON API). */
  readonly polledOntoBoard: (number: number) => Effect.Effect<void>
  /** The names of an issue's labels, through GitHub's REST API. */
  readonly labelsOf: (number: number) => Effect.Effect<ReadonlyArray<string>>
  /** The open pull request whose page is `href`, through GitHub's REST API. */
  readonly pullRequestAt: (href: string) => Effect.Effect<{ readonly number: number; readonly title: string } | undefined>
}

export class BoardWorld extends Context.Tag("test/BoardWorld")<BoardWorld, BoardWorldShape>() {}

/** Logs in through the Board's own form, so every later tab carries the session cookie. */
const logIn = (browser: BrowserContext, url: string) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { page } = yield* scopedPage(browser)
      yield* Effect.promise(async () => {
        await page.goto(url)
        await page.waitForURL(`${url}login`)
        await page.fill('input[name="token"]', BOARD_TOKEN)
        await page.click('[data-testid="login"] button[type="submit"]')
        await page.waitForURL(url)
        await page.locator("h1", { hasText: "Needs you" }).waitFor()
      })
    })
  )

/** What a world's usine.yaml is written from. */
export type WorldConfig = (options: { readonly apiUrl: string; readonly token: string; readonly boardPort: number; readonly dir: string }) => string

/**
 * The emulator with `acme/widgets` seeded from the demo's sample project, `usine up` as a child process with the
 * given configuration (and `files` written beside it first), and Chromium. Teardown closes the browser, sends SIGTERM
 * and waits for the drain (SIGKILL after that), then stops the emulator and removes the folders.
 */
export const boardWorldWith = (config: WorldConfig, files: Readonly<Record<string, string>> = {}) => Layer.scoped(
  BoardWorld,
  Effect.gen(function* () {
    const dir = yield* scopedDir
    const sim = yield* scopedSim
    const { token } = yield* Effect.promise(() => sim.control.createUser({ login: "usine-bot", permission: "write" }))
    yield* Effect.promise(() => sim.control.createRepository({ owner: "acme", name: "widgets", seedDirectory: SAMPLE_REPOSITORY }))
    const boardPort = yield* freePort
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
    writeFileSync(join(dir, "usine.yaml"), config({ apiUrl: sim.url, token, boardPort, dir }))
    const usine = yield* startUsine(dir, ["up"])
    yield* Effect.addFinalizer(() =>
      usine.child.exitCode === null
        ? usine.signal("SIGTERM").pipe(Effect.zipRight(Effect.ignore(usine.exit("30 seconds"))))
        : Effect.void
    )
    const url = (yield* usine.waitFor(/board=(http:\/\/127\.0\.0\.1:\d+\/)/))[1] ?? ""
    const browser = yield* scopedBrowser
    browser.setDefaultTimeout(30_000)
    yield* logIn(browser, url)
    const api = <A>(path: string) => Effect.orDie(json<A>(`${sim.url}${path}`, { headers: { authorization: `token ${token}` } }))
    return {
      sim,
      token,
      url,
      usine,
      browser,
      openIssue: (title, body, label) =>
        Effect.promise(() => sim.control.createIssue({ repo: REPOSITORY, title, body, labels: [label] })),
      polledOntoBoard: (number) =>
        eventually(
          `polling puts #${number} on the Board`,
          Effect.map(board<BoardView>(url, "/api/board"), (view) =>
            Option.fromNullable(view.columns.flatMap((column) => column.cards).find((card) => card.number === number)))
        ).pipe(Effect.orDie, Effect.asVoid),
      labelsOf: (number) =>
        Effect.map(api<{ labels: ReadonlyArray<{ name: string }> }>(`/repos/${REPOSITORY}/issues/${number}`), (issue) =>
          issue.labels.map((label) => label.name)),
      pullRequestAt: (href) =>
        Effect.map(
          api<ReadonlyArray<{ number: number; title: string; html_url: string }>>(`/repos/${REPOSITORY}/pulls?state=open`),
          (pulls) => pulls.find((pull) => pull.html_url === href)
        )
    }
  })
)

/** The browser suite's world: `browserConfig`'s columns, Agents and Loops. */
export const BoardWorldLive = boardWorldWith(browserConfig)
