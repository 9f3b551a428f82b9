import { openLikeLedger } from "../BareSqlite"
import { pushToPullSpans } from "../throughput/pullRequestPacing"

interface Logged {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly receivedAtMs: number
}

/** One Item of the burst: when it was labelled, its Run opened, and (if it came) its pull request opened. */
export interface BurstItem {
  readonly item: string
  readonly labelledAt: number
  /** The poll that read the labelled Item (the Event's `received_at`). */
  readonly seenAt: number
  /** The Run's row written (`created_at`). */
  readonly openedAt: number
  /** The emulator answered the pull request's POST 201. */
  readonly pullAt?: number
  /** Of label → PR, the time the PR's POST waited after its push: the GitHub client's pacing of writes. */
  readonly pacedMs?: number
}

/**
 * Each labelled Item's Run from the ledger (read after the daemon stopped) and its pull request from the emulator:
 * per repository, the nth POST …/pulls answered 201 made the nth pull request number, whose head branch ends with
 * the Run id's first 8 characters.
 */
export const burstTimeline = async (options: {
  readonly ledgerFile: string
  readonly labelledAt: ReadonlyMap<string, number>
  readonly log: ReadonlyArray<Logged>
  readonly repositories: ReadonlyArray<string>
  readonly pulls: (repository: string) => Promise<ReadonlyArray<{ readonly number: number; readonly head: string }>>
}): Promise<{ readonly items: ReadonlyArray<BurstItem>; readonly states: Readonly<Record<string, number>> }> => {
  const db = openLikeLedger(options.ledgerFile)
  const runs = (() => {
    try {
      return db.prepare(
        "SELECT r.id, r.item_key, r.state, r.created_at, e.received_at FROM usine_runs r JOIN usine_events e ON e.id = r.event_id"
      ).all() as ReadonlyArray<{ id: string; item_key: string; state: string; created_at: number; received_at: number }>
    } finally {
      db.close()
    }
  })()
  const states: Record<string, number> = {}
  for (const run of runs) states[run.state] = (states[run.state] ?? 0) + 1
  const pullOf = new Map<string, { readonly at: number; readonly pacedMs: number }>()
  for (const repository of options.repositories) {
    const posts = options.log
      .filter((r) => r.method === "POST" && r.path === `/repos/${repository}/pulls` && r.status === 201)
      .sort((a, b) => a.receivedAtMs - b.receivedAtMs)
    const spans = pushToPullSpans(options.log, repository)
    const heads = [...(await options.pulls(repository))].sort((a, b) => a.number - b.number)
    heads.forEach((p, i) => {
      const post = posts[i]
      if (post !== undefined) pullOf.set(p.head.slice(-8), { at: post.receivedAtMs, pacedMs: spans[i] ?? Number.NaN })
    })
  }
  const items = runs.flatMap((run): ReadonlyArray<BurstItem> => {
    const labelledAt = options.labelledAt.get(run.item_key)
    if (labelledAt === undefined) return []
    const pull = pullOf.get(run.id.slice(0, 8))
    return [{
      item: run.item_key,
      labelledAt,
      seenAt: run.received_at,
      openedAt: run.created_at,
      ...(pull === undefined ? {} : { pullAt: pull.at, pacedMs: pull.pacedMs })
    }]
  })
  return { items, states }
}
