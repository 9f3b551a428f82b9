import type { FC } from "hono/jsx"
import { RUN_STATE_TAGS } from "@usine/store/ReadModel/RunSummary"
import type { LoopsView } from "../BoardViews/loopsView"
import { ActionButton } from "./ActionButton"
import { itemName } from "./format"
import { LoopBrakes } from "./LoopBrakes"
import { RaiseCapForm } from "./RaiseCapForm"
import { capText } from "./usageText"

/** Each Loop: trigger, `if:`, Runs per state, pause, and the cycle-budget Asks it raised. */
export const LoopsPage: FC<{ view: LoopsView; csrf: string }> = ({ csrf, view }) => (
  <>
    {view.globalCap === undefined ? null : (
      <p data-testid="global-cap">{`Daemon daily cap: ${capText(view.globalCap)}. `}<RaiseCapForm cap={view.globalCap} csrf={csrf} back="/loops" /></p>
    )}
    {view.loops.length === 0 ? <p class="empty">No Loop is configured.</p> : null}
    {view.loops.map((loop) => (
      <section class="card" data-testid="loop" data-loop={loop.name} data-paused={loop.paused ? "yes" : "no"}>
        <h2>{loop.name} {loop.paused ? <small data-testid="paused">paused</small> : null}</h2>
        {loop.info === undefined ? <p class="empty">Not in usine.yaml any more.</p> : (
          <dl>
            <dt>Trigger</dt><dd>{loop.info.schedule === undefined ? loop.info.on : `schedule ${loop.info.schedule}`}</dd>
            <dt>if:</dt><dd><code data-testid="loop-if">{loop.info.if}</code></dd>
            <dt>Repositories</dt><dd>{loop.info.repositories.join(", ")}</dd>
            <dt>Agent</dt><dd>{`${loop.info.agent} · approval ${loop.info.approval}${loop.info.pullRequestApproval === "required" ? " · review before the pull request" : ""}${loop.info.judge === undefined ? "" : ` · judge ${loop.info.judge}`}`}</dd>
            {loop.info.maxCycles === undefined ? null : <><dt>Cycle budget</dt><dd>{`${loop.info.maxCycles} Runs per Item`}</dd></>}
          </dl>
        )}
        <LoopBrakes loop={loop} />
        {loop.cap === undefined ? null : <RaiseCapForm cap={loop.cap} csrf={csrf} back="/loops" />}
        <ul class="counts">
          {RUN_STATE_TAGS.map((tag) => (
            <li>{tag} <a href={`/runs?loop=${encodeURIComponent(loop.name)}&state=${tag}`} data-testid={`loop-count-${tag}`}>{String(loop.counts[tag])}</a></li>
          ))}
        </ul>
        {loop.refused === 0 ? null : <p data-testid="loop-refused">{`Refused triggers: ${loop.refused}`}</p>}
        {loop.info === undefined ? null : loop.paused
          ? <ActionButton action={`/loops/${loop.name}/unpause`} label="Unpause" testId={`unpause-${loop.name}`} csrf={csrf} back="/loops" />
          : <ActionButton action={`/loops/${loop.name}/pause`} label="Pause" testId={`pause-${loop.name}`} csrf={csrf} back="/loops" />}
        {loop.asks.map((ask) => (
          <p data-testid="ask" data-ask-id={ask.askId}>
            {`${itemName(ask.repository, ask.number)} spent its budget of ${ask.limit}. `}
            <ActionButton action="/budgets/reset" label="Reset budget" testId={`reset-${ask.askId}`} csrf={csrf} back="/loops" fields={{ itemKey: ask.itemKey, askId: ask.askId }} />
          </p>
        ))}
      </section>
    ))}
  </>
)
