/** Where and how the daemon exports its spans, from OpenTelemetry's standard variables. */
export interface TracingSettings {
  /** The traces URL: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. */
  readonly url: string
  readonly protocol: "http/protobuf" | "http/json"
  /** `OTEL_EXPORTER_OTLP_HEADERS`, then `OTEL_EXPORTER_OTLP_TRACES_HEADERS` over it: `name=value,name=value`. */
  readonly headers: Readonly<Record<string, string>>
  readonly serviceName: string
  /** `OTEL_BSP_SCHEDULE_DELAY`: milliseconds between two exports. */
  readonly exportIntervalMs: number
}

type Environment = Readonly<Record<string, string | undefined>>

const set = (env: Environment, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

const headersOf = (value: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (value ?? "").split(",").flatMap((pair) => {
      const at = pair.indexOf("=")
      if (at <= 0) return []
      const name = decodeURIComponent(pair.slice(0, at).trim())
      return name === "" ? [] : [[name, decodeURIComponent(pair.slice(at + 1).trim())] as const]
    })
  )

/**
 * The tracing settings of an environment; undefined (traces off) unless an OTLP endpoint is set. Only the OTLP/HTTP
 * protocols are spoken: `grpc` is refused with a reason rather than silently sending nothing.
 */
export const tracingSettings = (env: Environment): TracingSettings | { readonly refused: string } | undefined => {
  const traces = set(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
  const base = set(env, "OTEL_EXPORTER_OTLP_ENDPOINT")
  if (traces === undefined && base === undefined) return undefined
  if (set(env, "OTEL_SDK_DISABLED") === "true" || set(env, "OTEL_TRACES_EXPORTER") === "none") return undefined
  const protocol = set(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? set(env, "OTEL_EXPORTER_OTLP_PROTOCOL") ?? "http/protobuf"
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return { refused: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported: use http/protobuf or http/json` }
  }
  const delay = Number(set(env, "OTEL_BSP_SCHEDULE_DELAY") ?? "5000")
  return {
    url: traces ?? `${(base ?? "").replace(/\/+$/, "")}/v1/traces`,
    protocol,
    headers: { ...headersOf(set(env, "OTEL_EXPORTER_OTLP_HEADERS")), ...headersOf(set(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS")) },
    serviceName: set(env, "OTEL_SERVICE_NAME") ?? "usine",
    exportIntervalMs: Number.isFinite(delay) && delay > 0 ? delay : 5000
  }
}
