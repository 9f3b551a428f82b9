import type { Child, FC } from "hono/jsx"
import { CSRF_FIELD } from "../BoardServer/security"
import type { LedgerView } from "../BoardLedger"
import { ledgerLine } from "../BoardServer/ledgerGuard"

/** A standby's banner, or a shared ledger's leader; nothing on SQLite. */
const LedgerNote = (ledger: LedgerView | undefined) => {
  const line = ledger === undefined ? undefined : ledgerLine(ledger)
  if (line === undefined || ledger === undefined) return null
  return <p class={ledger.standby ? "standby" : "ledger"} data-testid={ledger.standby ? "standby" : "ledger"} role="note">{line}</p>
}

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
  /** The Board's ledger: a standby's page says it is read-only, a shared ledger's says who leads (ADR 0109). */
  ledger?: LedgerView | undefined
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
      {LedgerNote(props.ledger)}
      <div id="flash" data-testid="flash" role="status"></div>
      <main id="main" data-document-title={`${props.documentTitle ?? props.title} · usine`}>
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </body>
  </html>
)
