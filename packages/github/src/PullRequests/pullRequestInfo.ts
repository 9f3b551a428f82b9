/** A pull request as harvest needs it. */
export interface PullRequestInfo {
  readonly number: number
  /** The page on GitHub (`html_url`). */
  readonly url: string
  readonly title: string
  readonly body: string
  readonly state: "open" | "closed"
  readonly headRef: string
  readonly headSha: string
  /** `owner/name` of the head branch's repository: another one for a pull request from a fork. */
  readonly headRepository: string | undefined
  readonly baseRef: string
}

/** The fields of GitHub's pull-request JSON that `info` reads. */
export interface PullJson {
  readonly number: number
  readonly html_url: string
  readonly title: string
  readonly body: string | null
  readonly state: string
  readonly head: { readonly ref: string; readonly sha: string; readonly repo: { readonly full_name: string } | null }
  readonly base: { readonly ref: string }
}

/** A pull request from GitHub's JSON. */
export const info = (pull: PullJson): PullRequestInfo => ({
  number: pull.number,
  url: pull.html_url,
  title: pull.title,
  body: pull.body ?? "",
  state: pull.state === "open" ? "open" : "closed",
  headRef: pull.head.ref,
  headSha: pull.head.sha,
  headRepository: pull.head.repo?.full_name,
  baseRef: pull.base.ref
})

