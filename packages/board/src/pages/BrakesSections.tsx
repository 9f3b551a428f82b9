import type { FC } from "hono/jsx"
import type { BrakesView } from "../BoardViews/brakesView"
import { ActionButton } from "./ActionButton"
import { itemName, runPath, Time } from "./format"
import { RaiseCapForm } from "./RaiseCapForm"
import { capText } from "./usageText"

/** Needs you's brakes: daily caps reached, Items parked for no progress, Agents waiting for quota, held Runs. */
export const BrakesSections: FC<{ view: BrakesView; csrf: string }> = ({ csrf, view }) => (
  <>
    {view.capsReached.length === 0 ? null : (
      <section data-testid="caps-reached">
        <h2>Daily caps reached</h2>
        {view.capsReached.map((cap) => (
          <article class="card failed" data-testid="cap-reached" data-scope={cap.loop ?? ""}>
            <p>{`${cap.loop === undefined ? "The daemon" : `Loop ${cap.loop}`}: ${capText(cap)}. No new Attempt starts before the next UTC day unless you raise the cap.`}</p>
            <RaiseCapForm cap={cap} csrf={csrf} back="/" />
          </article>
        ))}
      </section>
    )}

    {view.parked.length === 0 ? null : (
      <section data-testid="parked">
        <h2>Parked: no progress</h2>
        {view.parked.map((item) => (
          <article class="card failed" data-testid="parked-item" data-loop={item.loop} data-item-key={item.itemKey}>
            <p>{`${item.loop} · ${itemName(item.repository, item.number)}: ${item.streak} Attempts in a row without a new commit or pull request. Its next Run waits for you.`}</p>
            <pre data-testid="parked-evidence">{item.evidence.join("\n")}</pre>
            <ActionButton action="/brakes/clear-no-progress" label="Let it run again" testId={`clear-${item.loop}-${item.number ?? ""}`} csrf={csrf} back="/" fields={{ loop: item.loop, itemKey: item.itemKey }} />
          </article>
        ))}
      </section>
    )}

    {view.agentHolds.length === 0 ? null : (
      <section data-testid="agent-holds">
        <h2>Agents waiting for a quota reset</h2>
        {view.agentHolds.map((hold) => (
          <p data-testid="agent-hold" data-agent={hold.agent}>
            {`${hold.agent}: waiting for quota reset at `}<Time at={hold.until} />{` (${hold.reason})`}
          </p>
        ))}
      </section>
    )}

    {view.held.length === 0 ? null : (
      <section data-testid="held">
        <h2>Held by a brake</h2>
        <ul>
          {view.held.map((hold) => (
            <li data-testid="held-run" data-run-id={hold.runId} data-kind={hold.kind}>
              <a href={runPath(hold.runId)}>{`${hold.loop} · ${itemName(hold.repository, hold.number)}`}</a>
              {` · ${hold.state} · `}<span data-testid="held-reason">{hold.reason}</span>
              {hold.until === undefined ? null : <> · until <Time at={hold.until} /></>}
            </li>
          ))}
        </ul>
        {view.moreHeld ? <p class="empty">More Runs are held.</p> : null}
      </section>
    )}
  </>
)
