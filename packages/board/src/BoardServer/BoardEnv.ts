import type { LedgerView } from "../BoardLedger"

/** What the Board's middleware puts on each request for the handlers. */
export interface BoardEnv {
  readonly Variables: {
    /** The request's CSRF token, for the forms the page renders. */
    readonly csrf: string
    /** The request carried a valid bearer token: no browser sends one by itself, so no CSRF check applies. */
    readonly bearer: boolean
    /** The live login session the request's cookie names; pages then offer to log out. */
    readonly session: string | undefined
    /**
     * The GitHub login of the person signed in with GitHub, whose role on each repository bounds what they may do;
     * undefined for the Board token (a bearer or its login form) and a Board without sign-in: full rights.
     */
    readonly person: string | undefined
    /** The Board's ledger (`BoardLedger`), for the pages and `/api/ledger`; undefined when the Board has none. */
    readonly ledger: LedgerView | undefined
  }
}
