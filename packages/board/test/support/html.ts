const unescape = (text: string) =>
  text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&")

/** The opening tags of elements with this `data-testid`. */
const tags = (html: string, testId: string): Array<string> =>
  [...html.matchAll(new RegExp(`<[a-z]+[^>]*data-testid="${testId}"[^>]*>`, "g"))].map((m) => m[0])

/** The values of one attribute on every element with this `data-testid`, in page order. */
export const attrs = (html: string, testId: string, attribute: string): Array<string> =>
  tags(html, testId).map((tag) => unescape(new RegExp(`${attribute}="([^"]*)"`).exec(tag)?.[1] ?? ""))

/** The text of every element with this `data-testid` whose content is text only. */
export const texts = (html: string, testId: string): Array<string> =>
  [...html.matchAll(new RegExp(`data-testid="${testId}"[^>]*>([^<]*)<`, "g"))].map((m) => unescape(m[1] ?? ""))
