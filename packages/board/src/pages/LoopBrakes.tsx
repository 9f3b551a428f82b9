import type { FC } from "hono/jsx"
import type { LoopView } from "../BoardViews/loopsView"
import { formatUsd } from "@usine/core/usage/usageFigures"
import { capText } from "./usageText"

/** A Loop's caps, no-progress brake and WIP limit, with where today stands. */
export const LoopBrakes: FC<{ loop: LoopView }> = ({ loop }) => {
  const budget = loop.info?.budget
  const run = [
    budget?.runTokens === undefined ? undefined : `${budget.runTokens.toLocaleString("en-US")} tokens`,
    budget?.runCostUsd === undefined ? undefined : formatUsd(budget.runCostUsd)
  ].filter((part) => part !== undefined)
  const limit = loop.info?.maxOpenPullRequests
  return (
    <dl data-testid="loop-brakes">
      {run.length === 0 ? null : <><dt>Per Run</dt><dd>{run.join(", ")}</dd></>}
      {loop.cap === undefined ? null : <><dt>Daily cap</dt><dd data-testid="loop-cap" data-reached={loop.cap.reached === undefined ? "no" : "yes"}>{capText(loop.cap)}</dd></>}
      {(loop.info?.maxNoProgress ?? 0) === 0 ? null : <><dt>No-progress brake</dt><dd>{`parks an Item after ${loop.info?.maxNoProgress} Attempts without progress`}</dd></>}
      {limit === undefined ? null : (
        <>
          <dt>Open pull requests</dt>
          <dd data-testid="loop-wip">{`${loop.openPullRequests?.length ?? 0} of ${limit}${(loop.openPullRequests ?? []).map((pr) => ` ${pr.repository}#${pr.number}`).join(",")}`}</dd>
        </>
      )}
    </dl>
  )
}
