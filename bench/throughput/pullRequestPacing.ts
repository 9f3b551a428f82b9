import type { StartedSim } from "@usine/github-sim/startSim"

interface Logged {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly receivedAtMs: number
}

/**
 * From each push to its pull request: the nth `POST …git-receive-pack` to the nth `POST …/pulls` that opened one,
 * by arrival at the emulator. A Run pushes, then opens its pull request; the GitHub client's write throttle holds
 * the POSTs in order (octokit plugin-throttling), so the nth push is the nth pull request's.
 */
export const pushToPullSpans = (log: ReadonlyArray<Logged>, repository: string): ReadonlyArray<number> => {
  const pushes = log.filter((r) => r.method === "POST" && r.path === `/${repository}.git/git-receive-pack` && r.status === 200)
  const posts = log.filter((r) => r.method === "POST" && r.path === `/repos/${repository}/pulls` && r.status === 201)
  const arrival = (a: Logged, b: Logged) => a.receivedAtMs - b.receivedAtMs
  pushes.sort(arrival)
  posts.sort(arrival)
  return posts.flatMap((post, i) => (pushes[i] === undefined ? [] : [post.receivedAtMs - pushes[i]!.receivedAtMs]))
}

/**
 * For each pull request the daemon opened, its branch and the time from its push to its POST (`pushToPullSpans`).
 * Less the same span of the bare work (which has no throttle: git's end of the push, `git log`, one POST), that is
 * the GitHub client's pacing of writes.
 */
export const pullRequestPacing = async (sim: StartedSim, token: string, repository: string, log: ReadonlyArray<Logged>) => {
  const heads = await pullHeads(sim, token, repository)
  // The emulator numbers pull requests in the order it created them, so the nth POST made the nth number.
  const byNumber = [...heads].sort((a, b) => a.number - b.number)
  return pushToPullSpans(log, repository).flatMap((spanMs, i) => {
    const head = byNumber[i]?.head
    return head === undefined ? [] : [{ head, spanMs }]
  })
}

/** Every pull request of `repository` with its head branch, read through the REST API. */
export const pullHeads = async (sim: StartedSim, token: string, repository: string) => {
  const heads: Array<{ readonly number: number; readonly head: string }> = []
  for (let page = 1; ; page++) {
    const response = await fetch(`${sim.url}/repos/${repository}/pulls?state=all&per_page=100&page=${page}`, {
      headers: { authorization: `token ${token}` }
    })
    const pulls = (await response.json()) as ReadonlyArray<{ readonly number: number; readonly head: { readonly ref: string } }>
    heads.push(...pulls.map((p) => ({ number: p.number, head: p.head.ref })))
    if (pulls.length < 100) return heads
  }
}
