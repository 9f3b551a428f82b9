import type { FC } from "hono/jsx"
import type { WorkerStatus } from "../WorkerStatusFeed"

/** Each Worker's slots, capabilities and health. */
export const WorkersPage: FC<{ view: { readonly workers: ReadonlyArray<WorkerStatus> } }> = ({ view }) => (
  <table>
    <thead><tr><th>Worker</th><th>Slots</th><th>Agents</th><th>Lost</th><th>Health</th><th>Sandbox</th><th>Limits</th></tr></thead>
    <tbody>
      {view.workers.map((w) => (
        <tr data-testid="worker" data-worker={w.name}>
          <td>{w.name}</td>
          <td data-testid="worker-slots">{`${w.slotsUsed}/${w.slotsMax}`}</td>
          <td>{w.capabilities.join(", ")}</td>
          <td>{w.lostCapabilities.join(", ")}</td>
          <td data-testid="worker-health" class={`health ${w.health}`}>{w.detail === undefined ? w.health : `${w.health}: ${w.detail}`}</td>
          <td data-testid="worker-sandbox" class={w.sandbox === "none" ? "health degraded" : undefined}>
            {w.sandbox === "none" ? "none: agents run unconfined, as the daemon's user" : w.sandbox ?? ""}
            {w.sandbox !== "none" && w.confinement !== undefined ? `, as ${w.confinement.user}` : ""}
          </td>
          <td data-testid="worker-limits">{w.sandbox === "none" ? "none" : w.confinement?.limits ?? ""}</td>
        </tr>
      ))}
    </tbody>
  </table>
)
