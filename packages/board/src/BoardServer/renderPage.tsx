import type { Context } from "hono"
import type { Child } from "hono/jsx"
import type { ContentfulStatusCode } from "hono/utils/http-status"
import { Layout } from "../pages/Layout"
import type { BoardEnv } from "./BoardEnv"

export interface PageFrame {
  readonly title: string
  readonly current: string
  readonly live?: "page" | "run"
  /** The document's title when it says more than the heading (Needs you's count). */
  readonly documentTitle?: string | undefined
}

/** A full HTML document around the page's content. */
export const renderPage = async (
  c: Context<BoardEnv>,
  frame: PageFrame,
  content: Child,
  status: ContentfulStatusCode = 200
): Promise<Response> => {
  const page = (
    <Layout title={frame.title} csrf={c.get("csrf")} current={frame.current} documentTitle={frame.documentTitle} loggedIn={c.get("session") !== undefined} ledger={c.get("ledger")} {...(frame.live === undefined ? {} : { live: frame.live })}>
      {content}
    </Layout>
  )
  return c.html(`<!DOCTYPE html>${await page.toString()}`, status)
}
