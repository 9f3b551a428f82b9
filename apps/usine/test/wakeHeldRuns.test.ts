import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import type { CycleReport } from "@usine/triggers/PollingTriggers"
import type { ItemResult, RepositoryPollReport } from "@usine/triggers/RepositoryPoll"
import { closedPullRequests } from "../src/daemon/wakeHeldRuns"

const item = (number: number, kind: ItemResult["kind"], present: boolean, open: boolean): ItemResult => ({
  number,
  kind,
  present,
  open,
  verdicts: []
})

const polled = (repository: string, items: ReadonlyArray<ItemResult>): CycleReport["repositories"][number] => ({
  repository,
  result: Either.right({
    repository,
    fromEmpty: false,
    pages: 1,
    notModified: false,
    items,
    createdLabels: [],
    cursor: { repository, watermark: undefined, etag: undefined, openPullRequests: [], activeLoops: "" }
  } satisfies RepositoryPollReport)
})

describe("closedPullRequests", () => {
  it("names the pull requests a cycle saw merged, closed or gone; not open ones, issues or failed repositories", () => {
    const report: CycleReport = {
      startedAt: 0,
      finishedAt: 1,
      repositories: [
        polled("acme/widgets", [
          item(1, "pull_request", true, true),
          item(2, "pull_request", true, false),
          item(3, "issue", true, false),
          item(4, "pull_request", false, false)
        ]),
        { repository: "acme/broken", result: Either.left("poll failed: 502") },
        polled("acme/gadgets", [item(9, "pull_request", true, false)])
      ]
    }
    assert.deepStrictEqual(closedPullRequests(report), ["acme/widgets#2", "acme/widgets#4", "acme/gadgets#9"])
    assert.deepStrictEqual(closedPullRequests({ ...report, repositories: [polled("acme/widgets", [item(1, "pull_request", true, true)])] }), [])
  })
})
