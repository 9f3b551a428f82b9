import type { FC } from "hono/jsx"
import type { BoardView } from "../BoardViews/boardView"
import { CSRF_FIELD } from "../BoardServer/security"
import { itemName, runPath } from "./format"

/** Items as cards in label columns; each card moves by a form post, and shows its open Runs. */
export const BoardPage: FC<{ view: BoardView; csrf: string }> = ({ csrf, view }) => (
  <div class="columns">
    {view.columns.length === 0 ? <p class="empty">No column is configured (board.columns in usine.yaml).</p> : null}
    {view.columns.map((column) => (
      <section class="column" data-testid="column" data-column={column.name} data-label={column.label}>
        <h2>{column.name} <small>{column.label}</small></h2>
        {column.cards.map((card) => (
          <article class="card" data-testid="card" data-item-key={card.itemKey} data-repository={card.repository} data-number={String(card.number)}>
            <header>
              {/^https?:\/\//.test(card.url) ? <a href={card.url} rel="noreferrer">{itemName(card.repository, card.number)}</a> : itemName(card.repository, card.number)}
              {card.kind === "pull_request" ? <small> PR</small> : null}
            </header>
            <p data-testid="card-title">{card.title}</p>
            {card.openRuns.map((run) => (
              <p><a href={runPath(run.id)} data-testid="card-run" data-run-id={run.id} data-state={run.state}>{`${run.loop}: ${run.state}`}</a></p>
            ))}
            <form method="post" action="/board/move" data-live-form class="move">
              <input type="hidden" name={CSRF_FIELD} value={csrf} />
              <input type="hidden" name="back" value="/board" />
              <input type="hidden" name="repository" value={card.repository} />
              <input type="hidden" name="number" value={String(card.number)} />
              <select name="column" data-testid={`move-column-${card.number}`}>
                {view.columns.map((c) => <option value={c.name} selected={c.name === column.name}>{c.name}</option>)}
              </select>
              <button type="submit" data-testid={`move-${card.number}`}>Move</button>
            </form>
          </article>
        ))}
      </section>
    ))}
  </div>
)
