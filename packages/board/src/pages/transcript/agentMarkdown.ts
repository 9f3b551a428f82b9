import { micromark } from "micromark"
import { gfm, gfmHtml } from "micromark-extension-gfm"

/**
 * micromark with its safe defaults (`allowDangerousHtml` and `allowDangerousProtocol` off: raw HTML is escaped,
 * unsafe hrefs are emptied) and images switched off, so `![alt](url)` is never fetched (ADR 0079).
 */
const options = {
  extensions: [gfm(), { disable: { null: ["labelStartImage"] } }],
  htmlExtensions: [gfmHtml()]
}

const anchor = /<a href="([^"]*)"((?: title="[^"]*")?)>([\s\S]*?)<\/a>/g
const taskBox = /<input type="checkbox" disabled=""( checked="")? \/>/g

/**
 * An agent's message as HTML. Every tag in micromark's output is its own (text is escaped), so the two rewrites
 * below see only micromark's markup: links stay links only to http(s) (micromark also allows mailto, irc and xmpp),
 * and open in no context of ours; GFM task boxes become ☑/☐ text, not unlabelled form controls.
 */
export const agentMarkdown = (text: string): string =>
  micromark(text, options)
    .replace(anchor, (_whole, href: string, title: string, inner: string) =>
      /^https?:\/\//i.test(href) ? `<a href="${href}"${title} rel="nofollow noreferrer noopener">${inner}</a>` : inner)
    .replace(taskBox, (_whole, checked: string | undefined) => (checked === undefined ? "☐" : "☑"))
