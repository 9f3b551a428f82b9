import type { FC } from "hono/jsx"
import type { NeedsYouView } from "../BoardViews/needsYouView"
import { ActionButton } from "./ActionButton"
import { BrakesSections } from "./BrakesSections"
import { itemName, runPath, Time } from "./format"
import { RefusedTriggers } from "./RefusedTriggers"
import { HeldPatch, ReviewActions } from "./ReviewGate"
import { TranscriptLines } from "./TranscriptLines"

const Empty: FC<{ text: string }> = ({ text }) => <p class="empty">{text}</p>

/** Needs you: every list the operator has to act on, each with its action at hand. */
export const NeedsYouPage: FC<{ view: NeedsYouView; csrf: string }> = ({ csrf, view }) => (
  <>
    <section data-testid="waiting">
      <h2>Waiting for approval</h2>
      {view.waiting.length === 0 ? <Empty text="No Run waits for approval." /> : null}
      {view.waiting.map(({ run, task }) => (
        <article class="card" data-testid="waiting-run" data-run-id={run.id}>
          <header>
            <a href={runPath(run.id)}>{`${run.loop} · ${itemName(run.repository, run.number)}`}</a> <Time at={run.receivedAt} />
          </header>
          <details>
            <summary>Prompt</summary>
            <pre data-testid="waiting-task">{task}</pre>
          </details>
          <ActionButton action={`${runPath(run.id)}/approve`} label="Approve" testId={`approve-${run.id}`} csrf={csrf} back="/" fields={{ version: run.version }} />
          <ActionButton action={`${runPath(run.id)}/cancel`} label="Cancel" testId={`cancel-${run.id}`} csrf={csrf} back="/" fields={{ version: run.version }} />
        </article>
      ))}
      {view.moreWaiting ? <p><a href="/runs?state=Waiting">More waiting Runs…</a></p> : null}
    </section>

    <section data-testid="reviewing">
      <h2>Waiting for review before the pull request</h2>
      {view.reviewing.length === 0 ? <Empty text="No Run waits at the pull-request gate." /> : null}
      {view.reviewing.map((r) => (
        <article class="card" data-testid="reviewing-run" data-run-id={r.run.id} data-attempt-id={r.attemptId}>
          <header>
            <a href={runPath(r.run.id)}>{`${r.run.loop} · ${itemName(r.run.repository, r.run.number)}`}</a>{" "}
            <span>{`Attempt ${r.attemptNumber} · ${r.summary}`}</span> <Time at={r.run.updatedAt} />
          </header>
          <HeldPatch runId={r.run.id} patch={r.patch} cut={r.patchCut} />
          <ReviewActions runId={r.run.id} version={r.run.version} csrf={csrf} back="/" testSuffix={`-${r.run.id}`} />
        </article>
      ))}
      {view.moreReviewing ? <p><a href="/runs?state=Reviewing">More Runs waiting for review…</a></p> : null}
    </section>

    <section data-testid="failed">
      <h2>Failed</h2>
      {view.failed.length === 0 ? <Empty text="No unresolved failure." /> : null}
      {view.failed.map((f) => (
        <article class="card failed" data-testid="failed-run" data-run-id={f.run.id} data-attempt-id={f.attemptId}>
          <header>
            <a href={runPath(f.run.id)}>{`${f.run.loop} · ${itemName(f.run.repository, f.run.number)}`}</a>{" "}
            <span>{`Attempt ${f.attemptNumber} · ${f.failure.tag}`}</span> <Time at={f.run.updatedAt} />
          </header>
          <p data-testid="failure-reason">{f.failure.reason}</p>
          {f.failure.evidence === "" ? null : <pre data-testid="failure-evidence">{f.failure.evidence}</pre>}
          <TranscriptLines lines={f.lastLines} />
          <ActionButton action={`${runPath(f.run.id)}/retry`} label="Retry" testId={`retry-${f.run.id}`} csrf={csrf} back="/" />
          <ActionButton action={`${runPath(f.run.id)}/resolve-failure`} label="Resolve" testId={`resolve-${f.run.id}`} csrf={csrf} back="/" />
        </article>
      ))}
      {view.moreFailed ? <p><a href="/runs?state=Failed">More failed Runs…</a></p> : null}
    </section>

    <section data-testid="asks">
      <h2>Cycle budgets spent</h2>
      {view.asks.length === 0 ? <Empty text="No Item has spent its cycle budget." /> : null}
      {view.asks.map((ask) => (
        <article class="card" data-testid="ask" data-ask-id={ask.askId}>
          <p>{`${ask.loop} opened ${ask.limit} Runs on ${itemName(ask.repository, ask.number)}; it opens no more until you reset the budget.`}</p>
          <ActionButton action="/budgets/reset" label="Reset budget" testId={`reset-${ask.askId}`} csrf={csrf} back="/" fields={{ itemKey: ask.itemKey, askId: ask.askId }} />
        </article>
      ))}
    </section>

    <BrakesSections view={view.brakes} csrf={csrf} />

    <section data-testid="poll-failures">
      <h2>Poll and prompt failures</h2>
      {view.pollFailures.length === 0 ? <Empty text="Polling is healthy." /> : null}
      <ul>
        {view.pollFailures.map((p) => (
          <li data-testid="poll-failure">
            <Time at={p.at} /> <span>{[p.repository, p.loop, p.item === undefined ? undefined : `#${p.item}`].filter(Boolean).join(" · ")}</span>
            <pre>{p.message}</pre>
          </li>
        ))}
      </ul>
    </section>

    <RefusedTriggers view={view.refused} />

    {view.workerAlerts.length === 0 ? null : (
      <section data-testid="worker-alerts">
        <h2>Workers</h2>
        {view.workerAlerts.map((w) => (
          <p data-testid="worker-alert" data-worker={w.name}>
            {`${w.name}: ${w.health}${w.lostCapabilities.length === 0 ? "" : `, lost ${w.lostCapabilities.join(", ")}`}${w.detail === undefined ? "" : ` (${w.detail})`}`}
          </p>
        ))}
      </section>
    )}

    {view.lowRateQuotas.length === 0 ? null : (
      <section data-testid="rate-budget">
        <h2>GitHub rate budget low</h2>
        {view.lowRateQuotas.map((q) => (
          <p data-testid="rate-quota" data-resource={q.resource}>
            {`${q.resource}: ${q.remaining} of ${q.limit} left`} {q.resetAt === undefined ? null : <>until <Time at={q.resetAt} /></>}
          </p>
        ))}
      </section>
    )}
  </>
)
