import { Effect } from "effect"
import type { BoardRoute } from "@usine/board/BoardRoutes"
import { DaemonMetrics } from "./DaemonMetrics"

/** `GET /metrics` in Prometheus text format, behind `board.token` like the API (ADR 0060). */
export const metricsRoute = Effect.map(DaemonMetrics, (registry): BoardRoute => ({
  method: "GET",
  path: "/metrics",
  access: "token",
  handle: () =>
    Effect.promise(() => registry.metrics()).pipe(
      Effect.map((text) => new Response(text, { status: 200, headers: { "content-type": registry.contentType } }))
    )
}))
