import type { SimWorld } from "../world/SimWorld"
import type { ApiContext } from "./route"

const readInt = (raw: string | undefined, fallback: number) => {
  const value = Number(raw)
  return raw !== undefined && Number.isInteger(value) && value > 0 ? value : fallback
}

/**
 * One page of `items` per GitHub's rules (`per_page` default 30, at most 100; `page` from 1), with the
 * `Link` header (prev/next/last/first, absolute URLs keeping the request's other query parameters).
 */
export const paginate = <A>(c: ApiContext, world: SimWorld, items: ReadonlyArray<A>): ReadonlyArray<A> => {
  const perPage = Math.min(100, readInt(c.req.query("per_page"), 30))
  const page = readInt(c.req.query("page"), 1)
  const last = Math.max(1, Math.ceil(items.length / perPage))
  const requested = new URL(c.req.url)
  const pageUrl = (n: number) => {
    const url = new URL(requested.pathname + requested.search, world.baseUrl)
    url.searchParams.set("page", String(n))
    return url.toString()
  }
  const links: Array<string> = []
  if (page > 1) links.push(`<${pageUrl(Math.min(page - 1, last))}>; rel="prev"`)
  if (page < last) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`)
  if (page > 1) links.push(`<${pageUrl(1)}>; rel="first"`)
  if (links.length > 0) c.header("Link", links.join(", "))
  return items.slice((page - 1) * perPage, page * perPage)
}
