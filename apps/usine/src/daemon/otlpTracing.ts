import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Duration, Effect, Layer, Option, Tracer } from "effect"
import type { TracingSettings } from "./tracingSettings"

/** Attributes a span hands down to every span under it: the Run, Loop and Item a Run's spans are about. */
const INHERITED_PREFIX = "usine."

/** Every string of an OTLP payload through the daemon's redactor: attributes, names, events, error messages. */
const redactDeep = (value: unknown, redact: (text: string) => string): unknown => {
  if (typeof value === "string") return redact(value)
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact))
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]))
  }
  return value
}

/**
 * The exporter's tracer, with `usine.*` attributes copied from a span's parent, so every span under a Run's (the
 * Attempt's phases, GitHub calls, git) says which Run it belongs to without the code that opens it knowing.
 */
const inheriting = (inner: Tracer.Tracer): Tracer.Tracer =>
  Tracer.make({
    span(name, parent, context, links, startTime, kind, options) {
      const span = inner.span(name, parent, context, links, startTime, kind, options)
      if (Option.isSome(parent) && parent.value._tag === "Span") {
        for (const [key, value] of parent.value.attributes) if (key.startsWith(INHERITED_PREFIX)) span.attribute(key, value)
      }
      return span
    },
    context: (f, fiber) => inner.context(f, fiber)
  })

/**
 * The OTLP/HTTP exporter's tracer for `settings`, every string of its payloads through `redact`: loaded only when
 * the environment asks for traces (ADR 0095), so a start without them never reads the exporter.
 */
export const otlpTracing = (settings: TracingSettings, redact: (text: string) => string): Layer.Layer<never> => {
  const serialization = Layer.effect(
    OtlpSerialization.OtlpSerialization,
    Effect.map(OtlpSerialization.OtlpSerialization, (base) => ({ ...base, traces: (data: unknown) => base.traces(redactDeep(data, redact)) }))
  ).pipe(Layer.provide(settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf))
  const tracer = OtlpTracer.make({
    url: settings.url,
    resource: { serviceName: settings.serviceName },
    headers: settings.headers,
    exportInterval: Duration.millis(settings.exportIntervalMs)
  })
  return Layer.unwrapScoped(
    Effect.map(tracer, (made) => Layer.setTracer(inheriting(made))).pipe(
      Effect.tap(() => Effect.logInfo(`traces go to ${redact(settings.url)} (${settings.protocol})`))
    )
  ).pipe(Layer.provide(Layer.merge(serialization, FetchHttpClient.layer)))
}
