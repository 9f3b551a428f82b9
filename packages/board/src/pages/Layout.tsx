import type { Child, FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"
import { standbyBanner } from "../BoardServer/standbyGuard"

const NAV: ReadonlyArray<readonly [path: string, label: string]> = [
  ["/", "Needs you"],
  ["/runs", "Runs"],
  ["/board", "Board"],
  ["/loops", "Loops"],
  ["/usage", "Usage"],
  ["/workers", "Workers"],
  ["/audit", "Audit"]
]

/**
 * The page frame. `live="page"` makes the script reload `<main>` when the ledger changes; the Run page follows its
 * own stream instead. Without JavaScript every page still works and every action is a plain form post.
 */
export const Layout: FC<{
  title: string
  csrf: string
  current: string
  live?: "page" | "run"
  /** The `<title>` when it differs from the heading; the script keeps it current when `<main>` is refreshed. */
  documentTitle?: string | undefined
  /** The request came with a login session: the nav offers to end it. */
  loggedIn?: boolean
  /** On a standby's Board: who leads the ledger (ADR 0109); the page says it is read-only. */
  standby?: string | undefined
  children?: Child
}> = (props) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="csrf-token" content={props.csrf} />
      <title>{`${props.documentTitle ?? props.title} · usine`}</title>
      <link rel="stylesheet" href="/assets/board.css" />
      <script src="/assets/board.js" defer></script>
    </head>
    <body data-live={props.live ?? "none"}>
      <nav>
        <strong>usine</strong>
        {NAV.map(([path, label]) => (
          <a href={path} aria-current={path === props.current ? "page" : undefined} data-testid={`nav-${path}`}>
            {label}
          </a>
        ))}
        {props.loggedIn === true ? (
          <form method="post" action="/logout" class="logout" data-testid="logout">
            <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
            <button type="submit">Log out</button>
          </form>
        ) : null}
      </nav>
      {props.standby === undefined ? null : (
        <p class="standby" data-testid="standby" role="note">{standbyBanner(props.standby)}</p>
      )}
      <div id="flash" data-testid="flash" role="status"></div>
      <main id="main" data-document-title={`${props.documentTitle ?? props.title} · usine`}>
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </body>
  </html>
)
