import type { FC } from "hono/jsx"

const utc = (at: number) => `${new Date(at).toISOString().replace("T", " ").slice(0, 19)} UTC`

/**
 * An instant, readable and machine-readable. The page shows it in UTC so every operator reads the same time; the
 * script turns it into a relative time ("5 min ago", or the elapsed time with `elapsed`), the UTC time in `title`.
 */
export const Time: FC<{ at: number | undefined; elapsed?: boolean }> = ({ at, elapsed }) =>
  at === undefined
    ? <span>—</span>
    : <time datetime={new Date(at).toISOString()} title={utc(at)} data-relative={elapsed === true ? "elapsed" : "ago"}>{utc(at)}</time>

export const itemName = (repository: string, number: number | undefined): string =>
  number === undefined ? repository : `${repository}#${number}`

export const runPath = (runId: string): string => `/runs/${runId}`
