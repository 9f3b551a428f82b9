import type { FC } from "hono/jsx"
import type { BoardView, CardChecks, CardRun } from "../BoardViews/boardView"
import { CSRF_FIELD } from "../BoardServer/security"
import { itemName, runPath, Time } from "./format"

const STATE_BADGE: Readonly<Record<string, string>> = { Running: "Running", Waiting: "Waiting", Failed: "Failed", Reviewing: "In review", Queued: "Queued", Pending: "Pending", Succeeded: "Succeeded", Canceled: "Canceled" }

/** The pull request's CI in words (a failing check first, then a running one), with every count on hover. */
const ChecksBadge: FC<{ checks: CardChecks }> = ({ checks }) => {
  const state = checks.total === 0 ? "none" : checks.failed > 0 ? "failing" : checks.pending > 0 ? "pending" : "passing"
  const text = state === "none"
    ? "CI: no checks"
    : state === "passing" ? `CI passing ${checks.passed}/${checks.total}` : `CI ${state} ${state === "failing" ? checks.failed : checks.pending}/${checks.total}`
  return (
    <span
      class={`badge ci ${state}`}
      data-testid="card-ci"
      data-ci={state}
      data-passed={String(checks.passed)}
      data-failed={String(checks.failed)}
      data-pending={String(checks.pending)}
      title={`${checks.passed} passing, ${checks.failed} failing, ${checks.pending} pending of ${checks.total} checks`}
    >{text}</span>
  )
}

/** The Item's newest Run as a badge (a Running one with its elapsed time), its Loop, and the pull request it opened. */
const RunBadge: FC<{ run: CardRun }> = ({ run }) => {
  const pr = run.pullRequest !== undefined && /^https?:\/\//.test(run.pullRequest.url) ? run.pullRequest : undefined
  return (
    <p class="card-badges" data-testid="card-latest" data-state={run.state}>
      <a href={runPath(run.id)} class={`badge ${run.state}`} data-testid="card-state">
        {STATE_BADGE[run.state] ?? run.state}{run.state === "Running" ? <> <Time at={run.since} elapsed /></> : null}
      </a>{" "}
      <span class="badge loop" data-testid="card-loop">{run.loop}</span>
      {pr === undefined ? null : <>{" "}<a href={pr.url} rel="noreferrer" class="badge pr" data-testid="card-pr">{pr.number === undefined ? "PR" : `PR #${pr.number}`}</a></>}
      {pr?.checks === undefined ? null : <>{" "}<ChecksBadge checks={pr.checks} /></>}
    </p>
  )
}

/**
 * Items as cards in label columns. A card moves by its form post; with the script, by dragging it onto another
 * column or by Alt+←/→ while it has focus. Each card shows its open Runs and its Item's newest Run.
 */
export const BoardPage: FC<{ view: BoardView; csrf: string }> = ({ csrf, view }) => (
  <>
  <p class="hint" id="board-hint">Drag a card to another column, or focus it and press Alt+← or Alt+→; the Move form does the same.</p>
  <div class="columns">
    {view.columns.length === 0 ? <p class="empty">No column is configured (board.columns in usine.yaml).</p> : null}
    {view.columns.map((column) => (
      <section class="column" data-testid="column" data-column={column.name} data-label={column.label} data-drop-column aria-label={`Column ${column.name}`}>
        <h2>{column.name} <small>{column.label}</small></h2>
        {column.cards.map((card) => (
          <article
            class="card"
            data-testid="card"
            data-item-key={card.itemKey}
            data-repository={card.repository}
            data-number={String(card.number)}
            data-draggable-card
            draggable="true"
            tabindex={0}
            aria-describedby="board-hint"
          >
            <header>
              {/^https?:\/\//.test(card.url) ? <a href={card.url} rel="noreferrer">{itemName(card.repository, card.number)}</a> : itemName(card.repository, card.number)}
              {card.kind === "pull_request" ? <small> PR</small> : null}
            </header>
            <p data-testid="card-title">{card.title}</p>
            {card.openRuns.map((run) => (
              <p><a href={runPath(run.id)} data-testid="card-run" data-run-id={run.id} data-state={run.state}>{`${run.loop}: ${run.state}`}</a></p>
            ))}
            {card.latestRun === undefined ? null : <RunBadge run={card.latestRun} />}
            <form method="post" action="/board/move" data-live-form class="move">
              <input type="hidden" name={CSRF_FIELD} value={csrf} />
              <input type="hidden" name="back" value="/board" />
              <input type="hidden" name="repository" value={card.repository} />
              <input type="hidden" name="number" value={String(card.number)} />
              <select name="column" data-testid={`move-column-${card.number}`} aria-label={`Column for ${itemName(card.repository, card.number)}`}>
                {view.columns.map((c) => <option value={c.name} selected={c.name === column.name}>{c.name}</option>)}
              </select>
              <button type="submit" data-testid={`move-${card.number}`}>Move</button>
            </form>
          </article>
        ))}
      </section>
    ))}
  </div>
  </>
)
