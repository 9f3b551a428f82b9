import { Cause, HashMap, Inspectable, type Logger, List } from "effect"

/** The engine annotates `runId`; the log calls it `run`, beside `loop` and `item`. */
const RENAMED: Readonly<Record<string, string>> = { runId: "run" }

/** An Item key (`["github","acme/widgets",7]`) as people write it: `acme/widgets#7`. */
const itemText = (value: string): string => {
  const match = /^\["github","([^"]+)"(?:,(\d+))?\]$/.exec(value)
  return match === null ? value : `${match[1]}${match[2] === undefined ? "" : `#${match[2]}`}`
}

const text = (value: unknown): string =>
  typeof value === "string"
    ? value
    : value instanceof Error
      ? value.message
      : Inspectable.toStringUnknown(Inspectable.redact(value), 0)

/** One log record as ordered fields: time, level, message, annotations, spans, cause. */
export const logFields = (options: Logger.Logger.Options<unknown>): ReadonlyArray<readonly [string, string]> => {
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  const fields: Array<readonly [string, string]> = [
    ["ts", options.date.toISOString()],
    ["level", options.logLevel.label],
    ["msg", parts.map(text).join(" ")]
  ]
  for (const [key, value] of HashMap.toEntries(options.annotations)) {
    fields.push([RENAMED[key] ?? key, key === "item" ? itemText(text(value)) : text(value)])
  }
  const now = options.date.getTime()
  for (const span of List.toArray(options.spans)) fields.push([`span.${span.label}`, `${now - span.startTime}ms`])
  if (!Cause.isEmpty(options.cause)) fields.push(["cause", Cause.pretty(options.cause, { renderErrorCause: true })])
  return fields
}

const logfmtValue = (value: string): string =>
  /^[^\s="\\]+$/.test(value) ? value : JSON.stringify(value)

/** `ts=… level=INFO msg="…" run=… loop=… item=…` */
export const logfmtLine = (fields: ReadonlyArray<readonly [string, string]>): string =>
  fields.map(([key, value]) => `${key}=${logfmtValue(value)}`).join(" ")

/** One JSON object per line, with the same fields. */
export const jsonLine = (fields: ReadonlyArray<readonly [string, string]>): string =>
  JSON.stringify(Object.fromEntries(fields))
