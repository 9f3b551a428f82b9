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
 * Text in which no Markdown construct can start: no markup character, no line break, no autolink, no leading
 * list marker or digit, no leading space. micromark makes it one escaped paragraph, trailing space dropped; this says so in a
 * microsecond (a transcript holds hundreds of such rows, micromark takes a good fraction of a millisecond each).
 */
const PLAIN = /^(?![\s\d+-])(?!.*(?:https?:|www\.))[^*_`[\]!<>#&|~\\\n\r@\u0000]*$/
const plain = (text: string) => /[^ \t]/.test(text) && PLAIN.test(text)
const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/**
 * An agent's message as HTML. Every tag in micromark's output is its own (text is escaped), so the two rewrites
 * below see only micromark's markup: links stay links only to http(s) (micromark also allows mailto, irc and xmpp),
 * and open in no context of ours; GFM task boxes become ☑/☐ text, not unlabelled form controls.
 */
export const agentMarkdown = (text: string): string =>
  plain(text) ? `<p>${escapeText(text.replace(/[ \t]+$/, ""))}</p>` : micromark(text, options)
    .replace(anchor, (_whole, href: string, title: string, inner: string) =>
      /^https?:\/\//i.test(href) ? `<a href="${href}"${title} rel="nofollow noreferrer noopener">${inner}</a>` : inner)
    .replace(taskBox, (_whole, checked: string | undefined) => (checked === undefined ? "☐" : "☑"))
