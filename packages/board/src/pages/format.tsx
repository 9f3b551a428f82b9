import type { FC } from "hono/jsx"

/** An instant, readable and machine-readable; UTC so every operator reads the same time. */
export const Time: FC<{ at: number | undefined }> = ({ at }) =>
  at === undefined ? <span>—</span> : <time datetime={new Date(at).toISOString()}>{new Date(at).toISOString().replace("T", " ").slice(0, 19)}</time>

export const itemName = (repository: string, number: number | undefined): string =>
  number === undefined ? repository : `${repository}#${number}`

export const runPath = (runId: string): string => `/runs/${runId}`
