import type { StartedSim } from "@usine/github-sim/startSim"

interface Logged {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly receivedAtMs: number
}

/**
 * For each pull request the daemon opened: how long its `POST …/pulls` came after the daemon's `GET …/pulls?head=`
 * for the same branch (PullRequests.ensure looks, then creates). Nothing else runs between the two but the GitHub
 * client's own throttle, which spaces content-creating requests (octokit plugin-throttling).
 */
export const pullRequestPacing = async (sim: StartedSim, token: string, repository: string, log: ReadonlyArray<Logged>) => {
  const heads: Array<{ readonly number: number; readonly head: string }> = []
  for (let page = 1; ; page++) {
    const response = await fetch(`${sim.url}/repos/${repository}/pulls?state=all&per_page=100&page=${page}`, {
      headers: { authorization: `token ${token}` }
    })
    const pulls = (await response.json()) as ReadonlyArray<{ readonly number: number; readonly head: { readonly ref: string } }>
    heads.push(...pulls.map((p) => ({ number: p.number, head: p.head.ref })))
    if (pulls.length < 100) break
  }
  // The emulator numbers pull requests in the order it created them, so the nth POST made the nth number.
  const posts = log.filter((r) => r.method === "POST" && r.path === `/repos/${repository}/pulls` && r.status === 201)
  const byNumber = [...heads].sort((a, b) => a.number - b.number)
  return posts.flatMap((post, i) => {
    const head = byNumber[i]?.head
    const look = log.find((r) => r.method === "GET" && r.path.includes(`head=${encodeURIComponent(`${repository.split("/")[0]}:${head}`)}`))
    return head === undefined || look === undefined ? [] : [{ head, waitMs: post.receivedAtMs - look.receivedAtMs }]
  })
}
