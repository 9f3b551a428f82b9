import type { FC } from "hono/jsx"
import type { CapStatus } from "../BoardViews/brakesView"
import { CSRF_FIELD } from "../BoardServer/security"

/** Raises today's cap of a scope: the fields start at twice usine.yaml's figure. */
export const RaiseCapForm: FC<{ cap: CapStatus; csrf: string; back: string }> = ({ back, cap, csrf }) => {
  const scope = cap.loop ?? "daemon"
  return (
    <form method="post" action="/budgets/raise" class="action" data-live-form>
      <input type="hidden" name={CSRF_FIELD} value={csrf} />
      <input type="hidden" name="back" value={back} />
      {cap.loop === undefined ? null : <input type="hidden" name="loop" value={cap.loop} />}
      {cap.configuredTokens === undefined ? null : (
        <label>
          {"Tokens today "}
          <input type="number" name="tokens" min={String(cap.configuredTokens)} value={String(Math.max(cap.tokens ?? 0, cap.configuredTokens * 2))} data-testid={`raise-tokens-${scope}`} />
        </label>
      )}
      {cap.configuredCostUsd === undefined ? null : (
        <label>
          {" Dollars today "}
          <input type="number" name="costUsd" step="0.01" min={String(cap.configuredCostUsd)} value={String(Math.max(cap.costUsd ?? 0, cap.configuredCostUsd * 2))} data-testid={`raise-cost-${scope}`} />
        </label>
      )}
      <button type="submit" data-testid={`raise-${scope}`}>Raise today's cap</button>
    </form>
  )
}
