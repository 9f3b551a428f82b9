import { Effect, Layer } from "effect"
import { tracingSettings } from "./tracingSettings"

/**
 * Traces over OTLP/HTTP (`@effect/opentelemetry`'s exporter, no OpenTelemetry SDK) when the environment names an
 * endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); nothing at all otherwise. Every
 * span the daemon's code already opens (`Effect.fn`, `Effect.withSpan`) is exported, redacted with the daemon's
 * secrets. Built around the whole daemon, so the last spans are sent when it stops.
 */
export const DaemonTracing = (
  env: Readonly<Record<string, string | undefined>>,
  redact: (text: string) => string
): Layer.Layer<never> => {
  const settings = tracingSettings(env)
  if (settings === undefined) return Layer.empty
  if ("refused" in settings) return Layer.effectDiscard(Effect.logWarning(`traces are off: ${settings.refused}`))
  return Layer.unwrapEffect(Effect.map(Effect.promise(() => import("./otlpTracing")), ({ otlpTracing }) => otlpTracing(settings, redact)))
}
