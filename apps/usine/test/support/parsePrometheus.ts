// @ts-expect-error the package ships no types; its output is described below
import parsePrometheusTextFormat from "parse-prometheus-text-format"

/** One sample as `parse-prometheus-text-format` gives it (prom2json's shape); histograms carry buckets. */
export interface PromSample {
  readonly value?: string
  readonly labels?: Readonly<Record<string, string>>
  readonly buckets?: Readonly<Record<string, string>>
  readonly count?: string
  readonly sum?: string
}

export interface PromFamily {
  readonly name: string
  readonly help: string
  readonly type: "GAUGE" | "COUNTER" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
  readonly metrics: ReadonlyArray<PromSample>
}

/** Parses the Prometheus text format with a parser that is not prom-client's. */
export const parsePrometheus = (text: string): ReadonlyArray<PromFamily> =>
  (parsePrometheusTextFormat as (text: string) => ReadonlyArray<PromFamily>)(text)
